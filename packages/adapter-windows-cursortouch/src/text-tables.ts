/**
 * The tables Windows-MCP prints inside Snapshot / State-Tool text. Releases used three shapes:
 * tabulate "simple" (a header row, a row of dash runs, then rows aligned to the runs), tabulate
 * "github" (`| a | b |` with a `|---|` rule), and pipe rows under a `# a|b|c` header. Each is
 * read into records keyed by lower-cased header; anything else yields no rows (the caller says
 * what it could not read rather than guessing).
 */

/** The lines under `header:` up to the next blank line. Several header spellings may be given. */
export function section(text: string, headers: readonly string[]): string[] | undefined {
  const lines = text.split(/\r?\n/);
  for (const header of headers) {
    const at = lines.findIndex((l) => l.trim().toLowerCase() === `${header.toLowerCase()}:`);
    if (at < 0) continue;
    const out: string[] = [];
    let i = at + 1;
    while (i < lines.length && lines[i]!.trim() === '') i++;
    for (; i < lines.length && lines[i]!.trim() !== ''; i++) out.push(lines[i]!.replace(/\s+$/, ''));
    return out;
  }
  return undefined;
}

export type Row = Record<string, string>;

export function parseTable(lines: readonly string[]): Row[] {
  const body = lines.filter((l) => l.trim() !== '');
  if (body.length === 0) return [];
  const first = body[0]!.trim();
  if (first.startsWith('# ') && first.includes('|')) return pipeRows(first.slice(2), body.slice(1));
  if (first.startsWith('|')) return githubRows(body);
  if (body.length >= 2 && /^\s*-+(\s+-+)*\s*$/.test(body[1]!)) return simpleRows(body[0]!, body[1]!, body.slice(2));
  return [];
}

const key = (h: string) => h.trim().toLowerCase();

function pipeRows(header: string, rows: readonly string[]): Row[] {
  const names = header.split('|').map(key);
  return rows.map((r) => {
    const cells = r.split('|');
    // A name holding "|" would add cells: the extra ones belong to the last column.
    const fixed = cells.length > names.length ? [...cells.slice(0, names.length - 1), cells.slice(names.length - 1).join('|')] : cells;
    return Object.fromEntries(names.map((n, i) => [n, (fixed[i] ?? '').trim()]));
  });
}

function githubRows(lines: readonly string[]): Row[] {
  const split = (l: string) => l.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
  const names = split(lines[0]!).map(key);
  return lines.slice(1).filter((l) => !/^\s*\|?\s*:?-+/.test(l)).map((l) => {
    const cells = split(l);
    return Object.fromEntries(names.map((n, i) => [n, cells[i] ?? '']));
  });
}

function simpleRows(header: string, rule: string, rows: readonly string[]): Row[] {
  const spans: { start: number; end: number }[] = [];
  for (const m of rule.matchAll(/-+/g)) spans.push({ start: m.index!, end: m.index! + m[0].length });
  const cell = (line: string, i: number) => line.slice(i === 0 ? 0 : spans[i]!.start, i + 1 < spans.length ? spans[i + 1]!.start : undefined).trim();
  // Windows-MCP's dedent leaves the header indented while rule and rows start at column 0
  // (the f-string indents only the first line of an interpolated table): headers are read by
  // their order (columns are 2+ spaces apart), cells by the rule's dash runs.
  const byOrder = header.trim().split(/\s{2,}/).map(key);
  const names = byOrder.length === spans.length ? byOrder : spans.map((_, i) => key(cell(header, i)));
  return rows.map((r) => Object.fromEntries(names.map((n, i) => [n, cell(r, i)])));
}

/** The first field present among `names`. */
export function field(row: Row, names: readonly string[]): string | undefined {
  for (const n of names) if (row[n] !== undefined && row[n] !== '') return row[n];
  return undefined;
}

/** "(x,y)" → a point; "(l,t,r,b)" → a box; also "x,y" and "[x, y]". */
export function parseCoords(text: string | undefined): { x: number; y: number; width?: number; height?: number } | undefined {
  if (!text) return undefined;
  const nums = [...text.matchAll(/-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
  if (nums.length >= 4) return { x: Math.round(nums[0]!), y: Math.round(nums[1]!), width: Math.max(0, Math.round(nums[2]! - nums[0]!)), height: Math.max(0, Math.round(nums[3]! - nums[1]!)) };
  if (nums.length >= 2) return { x: Math.round(nums[0]!), y: Math.round(nums[1]!) };
  return undefined;
}
