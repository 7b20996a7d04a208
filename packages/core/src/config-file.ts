/**
 * Reading vmhub's JSON config file. Before a byte is read, the file must be trusted
 * (file-trust.ts: owned by the user running vmhub or root, writable by nobody else): it names
 * plugins, which run as vmhub. A file that is not JSON is reported by path, line and column only —
 * never its content: VMHUB_CONFIG may be a symlink to a file the user could not read themselves
 * (a server running as root would otherwise print the first characters of /etc/shadow).
 */
import { readFileSync } from 'node:fs';
import { VmhubError } from './errors.ts';
import { untrustedPath } from './file-trust.ts';

/** The parsed file (`undefined` when the default file does not exist), or a typed error. */
export function readConfigFile(path: string, explicit: boolean): unknown {
  const bad = untrustedPath(path);
  if (bad) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] config file ${path} ${bad.why}: vmhub does not read it, since whoever can write it could make vmhub run their code; fix: ${bad.fix}`, {
      source: 'config',
      hint: `Run \`${bad.fix}\` (the file must be owned by the user running vmhub or root, and writable by nobody else), then start again.`,
    });
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !explicit) return undefined;
    if (code === 'ENOENT') throw new VmhubError('INVALID_REQUEST', `[vmhub] config file ${path} (VMHUB_CONFIG) does not exist`, { source: 'config' });
    throw new VmhubError('INVALID_REQUEST', `[vmhub] config file ${path} cannot be read (${code ?? (err as Error).message}): fix its permissions or point VMHUB_CONFIG at another file`, { source: 'config' });
  }
  try {
    return JSON.parse(text);
  } catch {
    const { line, column } = lineColumn(text, jsonErrorOffset(text));
    throw new VmhubError('INVALID_REQUEST', `[vmhub] config file ${path} is not valid JSON: syntax error at line ${line}, column ${column} (the file's content is not shown): fix the file`, {
      source: 'config',
      hint: `Open ${path} at line ${line}, column ${column} and fix the JSON there (every key: docs/configuration.md).`,
    });
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastBreak = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastBreak };
}

/**
 * Where JSON.parse fails in `text` (its message may quote the text, so the offset is found here):
 * a strict JSON (RFC 8259) scan; `text.length` when the text ends too early.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => { throw i; };
  const ws = () => { while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++; };
  const literal = (word: string) => { for (const ch of word) { if (text[i] !== ch) fail(); i++; } };
  const string = () => {
    if (text[i] !== '"') fail();
    i++;
    for (;;) {
      if (i >= text.length) fail();
      const c = text.charCodeAt(i);
      if (c === 0x22) { i++; return; }
      if (c < 0x20) fail();
      if (c === 0x5c) {
        i++;
        if (text[i] === 'u') { i++; for (let k = 0; k < 4; k++) { if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail(); i++; } } else if ('"\\/bfnrt'.includes(text[i] ?? 'x')) i++;
        else fail();
      } else i++;
    }
  };
  const digits = () => { const start = i; while (i < text.length && text[i]! >= '0' && text[i]! <= '9') i++; if (i === start) fail(); };
  const number = () => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') { i++; digits(); }
    if (text[i] === 'e' || text[i] === 'E') { i++; if (text[i] === '+' || text[i] === '-') i++; digits(); }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++; ws();
      if (text[i] === '}') { i++; return; }
      for (;;) {
        ws(); string(); ws();
        if (text[i] !== ':') fail();
        i++; value(); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return; }
        fail();
      }
    }
    if (c === '[') {
      i++; ws();
      if (text[i] === ']') { i++; return; }
      for (;;) {
        value(); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return; }
        fail();
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    fail();
  };
  try {
    value(); ws();
    if (i < text.length) fail();
  } catch (at) {
    if (typeof at === 'number') return Math.min(at, text.length);
    throw at;
  }
  return text.length;
}
