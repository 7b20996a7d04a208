/**
 * Which Windows-MCP tool serves each vmhub role, chosen from what the guest's `tools/list`
 * shows (read once per session). Names changed across releases — `State-Tool`, `Click-Tool`,
 * `Launch-Tool`, `Powershell-Tool`, … in the early (v0.1–0.5) releases; `Snapshot`, `Click`,
 * `App`, `PowerShell`, … since — and so did argument shapes (a list vs a "+"-joined shortcut,
 * `to_loc` vs `loc`, clipboard `copy|paste` vs `get|set`), so each role looks at the chosen
 * tool's input schema too. A role with no listed tool is simply absent: the capability answers
 * CAPABILITY_UNAVAILABLE naming the tools it looked for.
 */

export interface ListedTool {
  name: string;
  inputSchema?: { properties?: Record<string, unknown>; required?: string[] };
}

export type Role =
  | 'snapshot' | 'screenshot' | 'click' | 'type' | 'scroll' | 'move' | 'drag' | 'shortcut' | 'key'
  | 'launch' | 'switch' | 'powershell' | 'filesystem' | 'clipboard';

/** Tool names per role, preferred first. */
export const ALIASES: Record<Role, readonly string[]> = {
  snapshot: ['Snapshot', 'State-Tool'],
  screenshot: ['Screenshot', 'Snapshot', 'State-Tool'],
  click: ['Click', 'Click-Tool'],
  type: ['Type', 'Type-Tool'],
  scroll: ['Scroll', 'Scroll-Tool'],
  move: ['Move', 'Move-Tool'],
  drag: ['Move', 'Drag-Tool'],
  shortcut: ['Shortcut', 'Shortcut-Tool'],
  key: ['Key-Tool'],
  launch: ['App', 'App-Tool', 'Launch-Tool'],
  switch: ['App', 'App-Tool', 'Switch-Tool'],
  powershell: ['PowerShell', 'Powershell-Tool'],
  filesystem: ['FileSystem'],
  clipboard: ['Clipboard', 'Clipboard-Tool'],
};

export class ToolMap {
  readonly #tools = new Map<string, ListedTool>();

  constructor(listed: readonly ListedTool[]) {
    for (const t of listed) this.#tools.set(t.name, t);
  }

  /** Every listed tool name, sorted. */
  get names(): string[] {
    return [...this.#tools.keys()].sort();
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The tool serving `role`, or undefined when the guest lists none of its names. */
  tool(role: Role): ListedTool | undefined {
    for (const name of ALIASES[role]) {
      const t = this.#tools.get(name);
      if (!t) continue;
      // Move serves drag only where it has the drag flag (the early Move-Tool only hovers).
      if (role === 'drag' && name === 'Move' && !hasParam(t, 'drag')) continue;
      return t;
    }
    return undefined;
  }

  /** Why `role` is unavailable: the names it looked for. */
  missing(role: Role): string {
    return `this guest's Windows-MCP lists none of ${ALIASES[role].join(', ')} (tools/list shows ${this.names.join(', ') || 'nothing'})`;
  }
}

export function hasParam(tool: ListedTool, param: string): boolean {
  return Object.hasOwn(tool.inputSchema?.properties ?? {}, param);
}

/** The JSON-schema types a parameter accepts (anyOf flattened), e.g. ["array", "string", "null"]. */
export function paramTypes(tool: ListedTool, param: string): string[] {
  const schema = tool.inputSchema?.properties?.[param] as Record<string, unknown> | undefined;
  if (!schema) return [];
  const out: string[] = [];
  const visit = (s: unknown): void => {
    if (!s || typeof s !== 'object') return;
    const o = s as Record<string, unknown>;
    if (typeof o.type === 'string') out.push(o.type);
    if (Array.isArray(o.type)) out.push(...o.type.filter((x): x is string => typeof x === 'string'));
    for (const k of ['anyOf', 'oneOf']) if (Array.isArray(o[k])) (o[k] as unknown[]).forEach(visit);
  };
  visit(schema);
  return out;
}

/** The enum values a parameter accepts (anyOf flattened). */
export function paramEnum(tool: ListedTool, param: string): string[] {
  const schema = tool.inputSchema?.properties?.[param] as Record<string, unknown> | undefined;
  const out: string[] = [];
  const visit = (s: unknown): void => {
    if (!s || typeof s !== 'object') return;
    const o = s as Record<string, unknown>;
    if (Array.isArray(o.enum)) out.push(...o.enum.filter((x): x is string => typeof x === 'string'));
    for (const k of ['anyOf', 'oneOf']) if (Array.isArray(o[k])) (o[k] as unknown[]).forEach(visit);
  };
  visit(schema);
  return out;
}

/**
 * Keep only the arguments the tool declares: one call shape serves every release (a newer flag
 * such as `use_ui_tree` is dropped for a server that would reject the unknown field).
 */
export function fit(tool: ListedTool, args: Record<string, unknown>): Record<string, unknown> {
  const props = tool.inputSchema?.properties;
  if (!props) return args;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) if (v !== undefined && Object.hasOwn(props, k)) out[k] = v;
  return out;
}
