// Shared by both versions' tools: result shapes as FastMCP sends them, argument coercions the
// Python tools apply, label resolution, faults, and the screenshot itself.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Desktop } from './desktop.ts';
import { renderDesktop } from './render.ts';
import type { Faults } from './types.ts';

export class ToolError extends Error {}

export interface ToolCtx {
  d: Desktop;
  faults: Faults;
  signal: AbortSignal;
  screenshotScale: number;
}

export type ToolFn = (args: Record<string, unknown>, ctx: ToolCtx) => Promise<CallToolResult | string | (string | { png: Buffer })[]>;

export const QUARANTINE_MESSAGE =
  'Screenshot is quarantined: isolated graphics workers are denied desktop capture on this Windows session. Other MCP tools remain available.';
export const SNAPSHOT_FIRST = 'Desktop state is empty. Please call Snapshot first.';

/** _as_bool: True, or a string equal to "true" in any case. */
export const asBool = (v: unknown) => v === true || (typeof v === 'string' && v.toLowerCase() === 'true');

/** _as_loc: a list, or a JSON-stringified list some clients send. */
export function asLoc(v: unknown): unknown[] | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') {
    try {
      const p = JSON.parse(v);
      if (Array.isArray(p)) return p;
    } catch { /* fall through */ }
    throw new ToolError(`Expecting value: line 1 column 1 (char 0)`);
  }
  return null;
}

export function point(loc: unknown[] | null, what = 'Location must be a list of exactly 2 integers [x, y]'): { x: number; y: number } {
  if (!loc || loc.length !== 2) throw new ToolError(what);
  return { x: Number(loc[0]), y: Number(loc[1]) };
}

export function resolveLabel(d: Desktop, label: number): { x: number; y: number } {
  if (!d.lastSnapshot) throw new ToolError(SNAPSHOT_FIRST);
  const e = d.lastSnapshot[label];
  if (!e) throw new ToolError(`Failed to find element with label ${label}: list index out of range`);
  return { x: e.x + Math.floor(e.width / 2), y: e.y + Math.floor(e.height / 2) };
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(signal.reason); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** True when this screenshot must fail (and counts a numeric quarantine down). */
export function quarantined(f: Faults): boolean {
  if (f.quarantine === true) return true;
  if (typeof f.quarantine === 'number' && f.quarantine > 0) {
    f.quarantine -= 1;
    return true;
  }
  return false;
}

/** Captures the desktop, downscaled like Desktop.get_state: min(scale, fit into maxW×maxH). */
export function capture(ctx: ToolCtx, max = { width: 1920, height: 1080 }): { png: Buffer; width: number; height: number; scale: number } {
  const { d } = ctx;
  d.screenshots += 1;
  const s = Math.min(ctx.screenshotScale, d.screen.width > max.width ? max.width / d.screen.width : 1, d.screen.height > max.height ? max.height / d.screen.height : 1);
  const width = s !== 1 ? Math.trunc(d.screen.width * s) : d.screen.width;
  const height = s !== 1 ? Math.trunc(d.screen.height * s) : d.screen.height;
  return { png: renderDesktop(d, width, height), width, height, scale: s };
}

/** Python's str.title(). */
export const pyTitle = (s: string) => s.toLowerCase().replace(/(^|[^A-Za-z])([a-z])/g, (_, a: string, b: string) => a + b.toUpperCase());

/** Python's repr of a float: 10.0 → "10.0", 0.25 → "0.25". */
export const pyFloat = (n: number) => (Number.isInteger(n) ? `${n}.0` : String(n));
