/**
 * A small TypeScript/JavaScript lexer, just enough for the package-shape check to read imports:
 * it gives the source back with comments blanked (`code`) and with comments and the insides of
 * string, template and regex literals blanked (`bare`), both the same length as the source, so a
 * match in one is at the same offset (and line) in the others. Not a parser: a `/` after a value
 * is division, anywhere else it starts a regex literal.
 */
export interface Lexed {
  /** The source with every comment replaced by spaces (newlines kept). */
  readonly code: string;
  /** `code` with the insides of literals replaced by spaces too (quotes kept). */
  readonly bare: string;
}

/** After these (or at the start), a `/` begins a regex literal rather than a division. */
const BEFORE_REGEX = /[(,=:[!&|?{};+\-*%<>~^]$|^$|\b(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/;

export function lex(source: string): Lexed {
  const code = [...source];
  const bare = [...source];
  const blank = (out: string[], from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  // Template literals nest through `${ … }`: each entry is the brace depth at which one resumes.
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const n = source.length;
  const stringEnd = (from: number, quote: string): number => {
    let j = from;
    while (j < n && source[j] !== quote && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
    return Math.min(j, n);
  };
  // Scans template text from `from` to its closing backtick or to a `${`; returns where it stopped.
  const templateText = (from: number): number => {
    let j = from;
    while (j < n && source[j] !== '`' && !(source[j] === '$' && source[j + 1] === '{')) j += source[j] === '\\' ? 2 : 1;
    blank(bare, from, Math.min(j, n));
    if (j < n && source[j] === '$') {
      templates.push(depth);
      depth++;
      return j + 2;
    }
    return j + 1;
  };
  while (i < n) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end < 0 ? n : end;
      blank(code, i, stop);
      blank(bare, i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      blank(code, i, stop);
      blank(bare, i, stop);
      i = stop;
    } else if (c === '\'' || c === '"') {
      const end = stringEnd(i + 1, c);
      blank(bare, i + 1, end);
      i = end + 1;
    } else if (c === '`') {
      i = templateText(i + 1);
    } else if (c === '{') {
      depth++;
      i++;
    } else if (c === '}') {
      depth--;
      i++;
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        i = templateText(i);
      }
    } else if (c === '/' && BEFORE_REGEX.test(before(bare, i))) {
      let j = i + 1;
      let inClass = false;
      while (j < n && source[j] !== '\n' && (inClass || source[j] !== '/')) {
        if (source[j] === '[') inClass = true;
        else if (source[j] === ']') inClass = false;
        j += source[j] === '\\' ? 2 : 1;
      }
      blank(bare, i + 1, Math.min(j, n));
      i = j + 1;
    } else {
      i++;
    }
  }
  return { code: code.join(''), bare: bare.join('') };
}

/** Up to 12 characters of code before offset `i`, ending at the last one that is not a space. */
function before(bare: string[], i: number): string {
  let end = i;
  while (end > 0 && /\s/.test(bare[end - 1]!)) end--;
  return bare.slice(Math.max(0, end - 12), end).join('');
}

/** The 1-based line of an offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let k = 0; k < offset && k < text.length; k++) if (text[k] === '\n') line++;
  return line;
}
