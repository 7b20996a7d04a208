/**
 * What a source file imports: every static specifier (`import … from`, `export … from`, a bare
 * `import '…'`) with its line, and every dynamic `import(…)` expression. A type-position
 * `import('x').T` or `typeof import('x')` is no import at run time and is not reported.
 */
import { lex, lineAt } from './lexer.ts';

export interface ImportSeen {
  /** The module specifier as written; for a dynamic import, the argument's text. */
  readonly specifier: string;
  readonly line: number;
  readonly dynamic: boolean;
}

const STATIC = /(?<![\w$.])(?:import|export)\s+(?:type\s+)?[\w$*{}\s,]*?\bfrom\s*(['"])|(?<![\w$.])import\s*(['"])/g;
const DYNAMIC = /(?<![\w$.])(typeof\s+)?import\s*\(/g;
/** Members of a promise: `import('x').then(…)` is an expression, `import('x').Type` a type. */
const PROMISE_MEMBERS = new Set(['then', 'catch', 'finally']);

export function importsOf(source: string): ImportSeen[] {
  const { code, bare } = lex(source);
  const seen: ImportSeen[] = [];
  for (const m of bare.matchAll(STATIC)) {
    const quote = m.index + m[0].length - 1;
    const end = code.indexOf(m[1] ?? m[2]!, quote + 1);
    seen.push({ specifier: code.slice(quote + 1, end), line: lineAt(code, m.index), dynamic: false });
  }
  for (const m of bare.matchAll(DYNAMIC)) {
    if (m[1]) continue;
    const open = m.index + m[0].length;
    const close = closingParen(bare, open);
    const member = /^\s*\.\s*([\w$]+)/.exec(bare.slice(close + 1, close + 80));
    if (member && !PROMISE_MEMBERS.has(member[1]!)) continue;
    seen.push({ specifier: code.slice(open, close).trim(), line: lineAt(code, m.index), dynamic: true });
  }
  return seen.sort((a, b) => a.line - b.line);
}

/** The offset of the `)` closing the parenthesis opened just before `from`. */
function closingParen(text: string, from: number): number {
  let depth = 1;
  for (let k = from; k < text.length; k++) {
    if (text[k] === '(') depth++;
    else if (text[k] === ')' && --depth === 0) return k;
  }
  return text.length;
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); undefined for a relative or `node:` one. */
export function packageOf(specifier: string): string | undefined {
  const s = specifier.replace(/^['"`]|['"`]$/g, '');
  if (/^(\.|\/|node:|data:|file:)/.test(s) || s === '') return undefined;
  const parts = s.split('/');
  return s.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
