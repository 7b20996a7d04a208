import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { buildRemoteCommand, quoteArgv } from './shell-quote.ts';

const NASTY = ["it's", 'a b', '$(touch /tmp/pwned-vmhub)', '`id`', '; rm -rf /', '"dq"', '\\back', '*', '~', 'new\nline', '', "'", "''", '$HOME', '&&', '|', '-n', 'ünï©ødé'];

describe('proxmox: shell quoting', () => {
  it('a real /bin/sh gets every argv element back literally', () => {
    const out = execFileSync('/bin/sh', ['-c', `printf '%s\\0' ${quoteArgv(NASTY)}`]);
    assert.deepEqual(out.toString('utf8').split('\0').slice(0, -1), NASTY);
  });

  it('cwd, env and sudo prefixes are quoted too', () => {
    const cmd = buildRemoteCommand(['printf', '%s|', 'x y'], { cwd: '/tmp', env: { A: "v 'q'" } });
    assert.equal(execFileSync('/bin/sh', ['-c', cmd]).toString(), 'x y|');
    const cmd2 = buildRemoteCommand(['sh', '-c', 'printf %s "$A"'], { env: { A: "v 'q' $(x)" } });
    assert.equal(execFileSync('/bin/sh', ['-c', cmd2]).toString(), "v 'q' $(x)");
    const killed = buildRemoteCommand(['printf', '%s', "a'b"], { env: { A: '1' }, killAfterSeconds: 2.5 });
    assert.equal(execFileSync('/bin/sh', ['-c', killed]).toString(), "a'b");
    assert.match(killed, /timeout -s KILL 3 printf/);
    assert.throws(() => buildRemoteCommand(['x'], { env: { 'A B': '1' } }), /invalid/);
    assert.throws(() => buildRemoteCommand([]), /empty/);
  });
});
