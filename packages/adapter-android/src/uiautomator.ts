/**
 * `uiautomator dump` XML → the contract's ElementNode tree (format:
 * /work/notes/android-contract.md §5). The dump is a flat grammar — `<hierarchy rotation="…">`
 * holding `<node attr="…">` elements, self-closing or nested, attributes XML-escaped — so a
 * small tag scanner reads it without an XML dependency.
 */
import type { ElementNode } from '@vmhub/core';
import { androidError } from './errors.ts';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (all, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
    return ENTITIES[name] ?? all;
  });
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("([^"]*)"|'([^']*)')/g)) {
    out[m[1]!] = decodeXml(m[3] ?? m[4] ?? '');
  }
  return out;
}

const STATES = ['clickable', 'focused', 'focusable', 'checked', 'checkable', 'selected', 'scrollable', 'long-clickable', 'password'] as const;

function toNode(a: Record<string, string>): ElementNode {
  const cls = a.class ?? 'node';
  const node: ElementNode = { role: cls.slice(cls.lastIndexOf('.') + 1) || cls };
  const name = a.text || a['content-desc'] || a['resource-id'];
  if (name) node.name = name;
  const b = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec(a.bounds ?? '');
  if (b) {
    const [x1, y1, x2, y2] = b.slice(1).map(Number) as [number, number, number, number];
    Object.assign(node, { x: x1, y: y1, width: Math.max(0, x2 - x1), height: Math.max(0, y2 - y1) });
  }
  const states: string[] = STATES.filter((s) => a[s] === 'true');
  if (a.enabled === 'false') states.push('disabled');
  if (states.length) node.states = states;
  return node;
}

/** The XML part of what the dump script printed (it follows "UI hierchary dumped to: …"). */
export function extractXml(output: string): string | undefined {
  const start = output.search(/<\?xml|<hierarchy/);
  if (start < 0) return undefined;
  const end = output.lastIndexOf('</hierarchy>');
  return end < 0 ? undefined : output.slice(start, end + '</hierarchy>'.length);
}

/** Parse the dump; nodes deeper than maxDepth (the root is depth 0) are dropped. */
export function parseUiDump(xml: string, maxDepth: number): ElementNode {
  const root: ElementNode = { role: 'hierarchy', children: [] };
  const stack: { node: ElementNode; depth: number }[] = [{ node: root, depth: 0 }];
  let sawHierarchy = false;
  for (const m of xml.matchAll(/<(\/?)([A-Za-z][-A-Za-z0-9_:.]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g)) {
    const [, closing, tag, rest, selfClosing] = m;
    if (tag === 'hierarchy') {
      sawHierarchy = true;
      if (!closing) {
        const rot = attributes(rest!).rotation;
        if (rot) root.states = [`rotation-${rot}`];
      }
      continue;
    }
    if (tag !== 'node') continue;
    if (closing) {
      if (stack.length > 1) stack.pop();
      continue;
    }
    const parent = stack[stack.length - 1]!;
    const depth = parent.depth + 1;
    const node = toNode(attributes(rest!));
    if (depth <= maxDepth) (parent.node.children ??= []).push(node);
    if (!selfClosing) stack.push({ node, depth });
  }
  if (!sawHierarchy) throw androidError('INTERNAL', 'uiautomator dump did not return a <hierarchy> document');
  if (root.children?.length === 0) delete root.children;
  return root;
}
