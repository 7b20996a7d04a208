/**
 * vm_list_windows from Snapshot / State-Tool text: the "Focused Window" (v0.1: "Focused App")
 * and "Opened Windows" ("Opened Apps") tables. Windows-MCP reports each window's name, status,
 * size and handle (some releases: PID) — not always its position: x and y are read from X/Y or
 * Left/Top columns where a release prints them, else 0 (docs/adapters/windows.md says so).
 */
import type { WindowInfo } from '@vmhub/core';
import { field, parseTable, section, type Row } from './text-tables.ts';

const FOCUSED = ['Focused Window', 'Active Window', 'Focused App', 'Active App'];
const OPENED = ['Opened Windows', 'Opened Apps', 'Windows'];

function windowOf(row: Row, focused: boolean): WindowInfo | undefined {
  const title = field(row, ['name', 'title', 'window']);
  if (!title) return undefined;
  const handle = field(row, ['handle', 'hwnd', 'pid', 'id']);
  const num = (names: string[]) => {
    const v = Number(field(row, names));
    return Number.isFinite(v) ? Math.round(v) : 0;
  };
  const status = (field(row, ['status', 'state']) ?? '').toLowerCase();
  return {
    id: handle ?? title,
    title,
    class: field(row, ['class', 'process', 'app']) ?? '',
    x: num(['x', 'left']),
    y: num(['y', 'top']),
    width: Math.max(0, num(['width', 'w'])),
    height: Math.max(0, num(['height', 'h'])),
    focused,
    visible: !/minimi[sz]ed|hidden/.test(status),
  };
}

export function parseWindows(text: string): WindowInfo[] {
  const focused = parseTable(section(text, FOCUSED) ?? []).map((r) => windowOf(r, true)).filter((w): w is WindowInfo => w !== undefined).slice(0, 1);
  const opened = parseTable(section(text, OPENED) ?? []).map((r) => windowOf(r, false)).filter((w): w is WindowInfo => w !== undefined);
  const out = [...focused];
  for (const w of opened) {
    const same = out.find((o) => o.id === w.id);
    if (!same) out.push(w);
  }
  return out;
}
