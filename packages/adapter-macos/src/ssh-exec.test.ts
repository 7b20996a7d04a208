import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { remoteCommand } from './ssh-exec.ts';

// What the guest's login shell does with the command string: run it with `sh -c` here.
const asLoginShell = (cmd: string, shell = 'sh') => execFileSync(shell, ['-c', cmd], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('macos: the remote command line', () => {
  it('every argv word arrives literally through the login shell and the wrapper (sh, bash, and zsh, the macOS default, when installed)', () => {
    const argv = ["it's", '$(id)', '`id`', 'a;b', '"q"', '*', 'new\nline', '', '\\', 'ünï ✓', '-e', '--'];
    for (const shell of ['sh', 'bash', ...(existsSync('/usr/bin/zsh') ? ['zsh'] : [])]) {
      const out = asLoginShell(remoteCommand(['printf', '%s\\0', ...argv]), shell);
      assert.deepEqual(out.split('\0').slice(0, -1), argv, shell);
    }
  });

  it('cwd, PATH and env reach the command', () => {
    const out = asLoginShell(remoteCommand(['sh', '-c', 'pwd; echo "$PATH"; echo "$A"'], { cwd: '/tmp', path: '/usr/bin:/bin', env: { A: 'x y' } }));
    assert.equal(out, '/tmp\n/usr/bin:/bin\nx y\n');
  });
});
