import assert from 'node:assert/strict';
import { it } from 'node:test';
import { parseShell } from './fake-shell.ts';

it('parses words, quotes, ";" and ">&2"', () => {
  assert.deepEqual(parseShell(`echo 'a b' "c"d; echo err >&2;exit 3`), [
    { argv: ['echo', 'a b', 'cd'], toStderr: false },
    { argv: ['echo', 'err'], toStderr: true },
    { argv: ['exit', '3'], toStderr: false },
  ]);
});

it('refuses what it does not implement', () => {
  for (const bad of ['a | b', 'a > f', 'echo $X', 'echo "$X"', 'a && b', 'echo `id`', "echo 'open"]) assert.equal(typeof parseShell(bad), 'string', bad);
});
