/**
 * A deliberately tiny `sh -c` for the fake guest: words with '…' / "…" quoting, `;` between
 * commands, `>&2` to send a command's stdout to stderr, and `exit N`. Anything else (pipes,
 * redirections to files, variables, globs) is refused with exit 2, so tests never depend on a
 * host shell.
 */
export type ShellStep = { argv: string[]; toStderr: boolean };

export function parseShell(script: string): ShellStep[] | string {
  const steps: ShellStep[] = [];
  let words: string[] = [];
  let toStderr = false;
  let word: string | undefined;
  const endWord = () => { if (word !== undefined) { words.push(word); word = undefined; } };
  const endStep = () => { endWord(); if (words.length) steps.push({ argv: words, toStderr }); words = []; toStderr = false; };
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (c === "'" || c === '"') {
      const end = script.indexOf(c, i + 1);
      if (end < 0) return `unterminated ${c} quote`;
      const inner = script.slice(i + 1, end);
      if (c === '"' && /[$`\\]/.test(inner)) return 'variables and escapes are not supported';
      word = (word ?? '') + inner;
      i = end;
    } else if (c === ' ' || c === '\t') endWord();
    else if (c === ';' || c === '\n') endStep();
    else if (script.startsWith('>&2', i)) { endWord(); toStderr = true; i += 2; }
    else if ('|&<>$`\\*?(){}'.includes(c)) return `"${c}" is not supported`;
    else word = (word ?? '') + c;
  }
  endStep();
  return steps;
}
