import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { KILL_DESCENDANTS } from './agent-channel.ts';

const children = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)]).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
const descendants = (pid: number): number[] => children(pid).flatMap((c) => [c, ...descendants(c)]);
const running = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
};

it('proxmox: the guest-agent kill script SIGKILLs every descendant of a wrapper pid', async (t) => {
  // A wrapper like runuser or the base64 pipe: the work runs in children and grandchildren.
  const wrapper = spawn('sh', ['-c', 'sleep 300 & (sleep 300 & wait) & wait'], { stdio: 'ignore' });
  t.after(() => { wrapper.kill('SIGKILL'); });
  let tree: number[] = [];
  for (let i = 0; i < 100 && tree.length < 3; i++) {
    await new Promise((res) => setTimeout(res, 20));
    tree = descendants(wrapper.pid!);
  }
  assert.equal(tree.length, 3, `the wrapper runs a sleep and a subshell with another: ${tree.join(' ')}`);
  t.after(() => { for (const p of tree) try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } });
  execFileSync('sh', ['-c', KILL_DESCENDANTS, 'sh', String(wrapper.pid)], { timeout: 5000 });
  // SIGKILL is delivered asynchronously: a loaded machine may show a victim alive for a moment.
  let alive = tree.filter(running);
  for (let i = 0; i < 150 && alive.length > 0; i++) {
    await new Promise((res) => setTimeout(res, 20));
    alive = tree.filter(running);
  }
  assert.deepEqual(alive, [], 'no descendant still runs');
  // With its children gone the wrapper's `wait` returns: nothing is left.
  await Promise.race([once(wrapper, 'exit'), new Promise((res) => setTimeout(res, 3000))]);
  assert.notEqual(wrapper.exitCode ?? wrapper.signalCode, null, 'the wrapper ended too');
});
