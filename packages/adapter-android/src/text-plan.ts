/**
 * How text reaches the focused field (contract: /work/notes/android-contract.md §2–3):
 * - printable ASCII through `input text`: Android reads `%s` as a space, so spaces are sent as
 *   `%s` and a literal `%` followed by `s` ends its call (the `s` starts the next one) — the
 *   text arrives exactly; shell metacharacters need nothing (argv, never a shell string);
 * - a newline is KEYCODE_ENTER, a tab KEYCODE_TAB (`\r\n` and `\r` count as one newline);
 * - a line holding anything else (non-ASCII, other control characters) goes whole through the
 *   clipboard: the Clipper broadcast sets it, KEYCODE_PASTE pastes it.
 */
export type TextStep =
  | { kind: 'text'; arg: string }
  | { kind: 'key'; code: string }
  | { kind: 'clipboard'; text: string };

const PRINTABLE = /^[\x20-\x7e]$/;

/** Encode one printable-ASCII run as `input text` arguments (each at most `chunk` characters). */
export function inputTextArgs(run: string, chunk: number): string[] {
  const args: string[] = [];
  let cur = '';
  let chars = 0;
  for (let i = 0; i < run.length; i++) {
    const c = run[i]!;
    cur += c === ' ' ? '%s' : c;
    chars++;
    const breakHere = (c === '%' && run[i + 1] === 's') || chars >= chunk;
    if (breakHere) {
      args.push(cur);
      cur = '';
      chars = 0;
    }
  }
  if (cur) args.push(cur);
  return args;
}

export function planText(text: string, chunk: number): TextStep[] {
  const steps: TextStep[] = [];
  // Lines (split at newline and tab) are typed whole: one with any character `input text`
  // cannot type goes whole through the clipboard — one broadcast instead of one per character.
  for (const part of text.replace(/\r\n?/g, '\n').split(/([\n\t])/)) {
    if (part === '\n' || part === '\t') steps.push({ kind: 'key', code: part === '\n' ? 'KEYCODE_ENTER' : 'KEYCODE_TAB' });
    else if (part === '') continue;
    else if (Array.from(part).every((c) => PRINTABLE.test(c))) for (const arg of inputTextArgs(part, chunk)) steps.push({ kind: 'text', arg });
    else steps.push({ kind: 'clipboard', text: part });
  }
  return steps;
}
