/**
 * vm_inspect from Snapshot / State-Tool text: Windows-MCP's UI Automation view of the desktop
 * ("UI Tree", or the v0.1 "List of Interactive/Informative/Scrollable Elements" tables) turned
 * into vmhub's ElementNode tree: desktop → one node per window → its elements. Releases print
 * the tree as tables (pipe rows or tabulate) or as an indented outline; both are read, and a
 * text neither shape fits gives the desktop node with no children (the caller reports it).
 */
import type { ElementNode } from '@vmhub/core';
import { field, parseCoords, parseTable, section, type Row } from './text-tables.ts';

const TREE_SECTIONS = ['UI Tree', 'Interactive Elements', 'List of Interactive Elements'];
const EXTRA_SECTIONS = ['Scrollable Elements', 'List of Scrollable Elements', 'List of Informative Elements', 'Informative Elements'];

function elementOf(row: Row): ElementNode & { window?: string } {
  const coords = parseCoords(field(row, ['coords', 'coordinates', 'center', 'bbox', 'bounding box', 'location', 'loc']));
  const node: ElementNode & { window?: string } = { role: field(row, ['control_type', 'controltype', 'control type', 'type', 'role']) ?? 'element' };
  const name = field(row, ['name', 'text', 'label name']);
  if (name) node.name = name;
  if (coords) Object.assign(node, coords);
  const states: string[] = [];
  const id = field(row, ['id', 'label', '#']);
  if (id) states.push(`label:${id}`);
  if (/^true$/i.test(field(row, ['isfocused', 'focused']) ?? '')) states.push('focused');
  const value = field(row, ['value']);
  if (value) states.push(`value:${value}`);
  if (states.length) node.states = states;
  const window = field(row, ['window', 'window_name', 'app name', 'app', 'window name']);
  if (window) node.window = window;
  return node;
}

/**
 * An indented outline, as 0.8 prints it:
 *   desktop
 *       ├── window "Untitled - Notepad"
 *       │   └── (640,400) edit "Text Editor"  [action: fill]  [focused]  [value:"…"]
 * Depth is the width of the prefix (spaces and box-drawing characters).
 */
function outline(lines: readonly string[]): ElementNode[] {
  const roots: ElementNode[] = [];
  const stack: { depth: number; node: ElementNode }[] = [];
  for (const line of lines) {
    const m = /^([\s│├└─|`*-]*)(.*)$/.exec(line)!;
    let body = m[2]!.trim();
    if (!body || /^no (\w+ )*(elements?|found)\.?$/i.test(body)) continue;
    const depth = m[1]!.length;
    const node: ElementNode = { role: 'element' };
    const lead = /^\(\s*(-?\d+)\s*,\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*,\s*(-?\d+)\s*)?\)\s*/.exec(body);
    if (lead) {
      Object.assign(node, parseCoords(lead[0]));
      body = body.slice(lead[0].length);
    }
    // The role is everything before the name ("menu item", "list item", "window").
    node.role = /^[^"\[(]*/.exec(body)![0].trim() || 'element';
    const name = /"((?:[^"\\]|\\.)*)"/.exec(body)?.[1];
    if (name !== undefined && name !== '') node.name = name;
    const states = [...body.matchAll(/\[([^\]]*)\]/g)].map((s) => s[1]!.replace(/:\s+/, ':').trim()).filter((s) => s.length > 0);
    if (states.length) node.states = states;
    if (!lead) {
      const tail = parseCoords(/\(([-\d.,\s]+)\)\s*$/.exec(body)?.[1]);
      if (tail) Object.assign(node, tail);
    }
    while (stack.length && stack.at(-1)!.depth >= depth) stack.pop();
    const parent = stack.at(-1)?.node;
    if (parent) (parent.children ??= []).push(node);
    else roots.push(node);
    stack.push({ depth, node });
  }
  // 0.8 roots its outline at "desktop": that is this tree's own root.
  if (roots.length === 1 && roots[0]!.role === 'desktop') return roots[0]!.children ?? [];
  return roots;
}

function prune(node: ElementNode, depth: number): ElementNode {
  if (!node.children) return node;
  if (depth <= 1) { const { children: _, ...rest } = node; return rest; }
  return { ...node, children: node.children.map((c) => prune(c, depth - 1)) };
}

export function parseTree(text: string, maxDepth: number): ElementNode {
  const root: ElementNode = { role: 'desktop', name: 'Windows desktop', children: [] };
  const lines = [...(section(text, TREE_SECTIONS) ?? []), ...EXTRA_SECTIONS.flatMap((s) => section(text, [s]) ?? [])];
  const rows = parseTable(section(text, TREE_SECTIONS) ?? []);
  const extra = EXTRA_SECTIONS.flatMap((s) => parseTable(section(text, [s]) ?? []));
  if (rows.length + extra.length > 0) {
    const windows = new Map<string, ElementNode>();
    for (const row of [...rows, ...extra]) {
      const { window, ...el } = elementOf(row);
      const name = window ?? 'Desktop';
      let w = windows.get(name);
      if (!w) { w = { role: 'window', name, children: [] }; windows.set(name, w); root.children!.push(w); }
      w.children!.push(el);
    }
  } else if (lines.length > 0) {
    root.children = outline(lines);
  }
  return prune(root, maxDepth);
}
