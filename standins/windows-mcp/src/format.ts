// The text Windows-MCP prints, rebuilt the way Python builds it: tabulate's "simple" tables,
// textwrap.dedent over f-strings, the 0.8.x semantic UI tree and the 0.5.x element tables.
// Sources: desktop/views.py, tree/views.py, tools/_snapshot_helpers.py (0.8.2, cba5769) and
// __main__.py, desktop/views.py, tree/views.py (0.5.8, f2d8aa7).
import type { Desktop, SimWindow, UiElement } from './desktop.ts';

type Cell = string | number | boolean;

/** tabulate(rows, headers, tablefmt="simple"): numbers right-aligned, the rest left, widths ≥ header+2. */
export function tabulate(rows: Cell[][], headers: string[]): string {
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number'));
  const str = (v: Cell) => (typeof v === 'boolean' ? (v ? 'True' : 'False') : String(v));
  const widths = headers.map((h, i) => Math.max(h.length + 2, ...rows.map((r) => str(r[i]).length)));
  const pad = (s: string, i: number) => (numeric[i] ? s.padStart(widths[i]) : s.padEnd(widths[i]));
  const line = (cells: string[]) => cells.map(pad).join('  ').trimEnd(); // tabulate rstrips every row
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => line(r.map(str)))].join('\n');
}

/** Python's textwrap.dedent: whitespace-only lines emptied, the common leading margin removed. */
export function dedent(text: string): string {
  const lines = text.split('\n').map((l) => (/^[ \t]+$/.test(l) ? '' : l));
  let margin: string | undefined;
  for (const l of lines) {
    if (l === '') continue;
    const m = /^[ \t]*/.exec(l)![0];
    if (margin === undefined) margin = m;
    else {
      let i = 0;
      while (i < margin.length && i < m.length && margin[i] === m[i]) i++;
      margin = margin.slice(0, i);
    }
  }
  return margin ? lines.map((l) => (l.startsWith(margin!) ? l.slice(margin!.length) : l)).join('\n') : lines.join('\n');
}

/** An f-string template whose lines are indented 4 spaces, values spliced in as Python does. */
export function pyTemplate(lines: string[], values: Record<string, string>): string {
  return lines.map((l) => l.replace(/\{(\w+)\}/g, (_, k: string) => values[k])).join('\n');
}

const windowRow = (w: SimWindow) => [w.title, 0, w.status, w.width, w.height, w.handle];
const WINDOW_HEADERS = ['Name', 'Depth', 'Status', 'Width', 'Height', 'Handle'];

export function activeWindowText(d: Desktop, none: string): string {
  const w = d.focusedWindow;
  return w ? tabulate([windowRow(w)], WINDOW_HEADERS) : none;
}

export function windowsText(d: Desktop, none: string): string {
  // DesktopState removes the active window from the list (desktop/service.py get_state)
  const rows = [...d.windows].reverse().filter((w) => !w.focused).map(windowRow);
  return rows.length ? tabulate(rows, WINDOW_HEADERS) : none;
}

const ACTIONS: Record<string, string> = { edit: 'fill', 'check box': 'toggle', 'combo box': 'select', slider: 'slide', 'radio button': 'select', document: 'scroll' };
const center = (e: UiElement) => `(${e.x + Math.floor(e.width / 2)},${e.y + Math.floor(e.height / 2)})`;

function elementLine(e: UiElement): string {
  const ctrl = e.controlType.toLowerCase();
  const meta: string[] = [];
  if (e.focused) meta.push('focused');
  if (e.value && e.value !== '(empty)') meta.push(`value:"${e.value}"`);
  const m = meta.length ? `  ${meta.map((p) => `[${p}]`).join('  ')}` : '';
  return `${center(e)} ${ctrl} "${e.name}"  [action: ${ACTIONS[ctrl] ?? 'click'}]${m}`;
}

/** 0.8.x `UI Tree:` — desktop → windows → (menu bar) → elements, box-drawing connectors. */
export function semanticTree(d: Desktop): string {
  const wins = d.visibleWindows();
  if (!wins.length) return 'No elements';
  const lines = ['desktop'];
  wins.forEach((w, wi) => {
    const lastWin = wi === wins.length - 1;
    lines.push(`    ${lastWin ? '└── ' : '├── '}window "${w.title}"`);
    const p = `    ${lastWin ? '    ' : '│   '}`;
    const els = d.elements(w);
    const menus = els.filter((e) => e.controlType === 'Menu Item');
    const items: ({ el: UiElement } | { bar: UiElement[] })[] = [];
    for (const e of els) {
      if (e.controlType !== 'Menu Item') items.push({ el: e });
      else if (e === menus[0]) items.push({ bar: menus });
    }
    items.forEach((it, i) => {
      const last = i === items.length - 1;
      if ('el' in it) lines.push(`${p}${last ? '└── ' : '├── '}${elementLine(it.el)}`);
      else {
        lines.push(`${p}${last ? '└── ' : '├── '}menu bar "Application"`);
        it.bar.forEach((m, j) => lines.push(`${p}${last ? '    ' : '│   '}${j === it.bar.length - 1 ? '└── ' : '├── '}${elementLine(m)}`));
      }
    });
  });
  return lines.join('\n');
}

/** 0.5.x `List of Interactive Elements:` table. */
export function interactiveTable058(d: Desktop): string {
  const els = d.interactiveElements();
  if (!els.length) return 'No interactive elements';
  const rows = els.map((e, i) => [i, e.window.title, e.controlTypeName, e.name, e.value ?? '', '', center(e), e.focused]);
  return tabulate(rows, ['Label', 'App Name', 'ControlType', 'Name', 'Value', 'Shortcut', 'Coordinates', 'IsFocused']);
}
