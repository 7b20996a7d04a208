/**
 * The test desktop's display picker: a lock file left by an X server that was SIGKILLed (its pid
 * is gone) does not make a display count as taken — CI once ran out of displays :90–:199 that way.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { it } from 'node:test';
import { displayInUse, startXSession } from './x-session.ts';

/** A pid that no process has: a child that already exited and was reaped. */
function deadPid(): number {
  return Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
}

it('x-session: a stale lock (dead pid) leaves the display free; a lock naming a live pid takes it', (t) => {
  const n = [...Array(40).keys()].map((i) => 250 + i).find((d) => !existsSync(`/tmp/.X${d}-lock`) && !displayInUse(d));
  assert.ok(n !== undefined, 'a display number with no lock to test with');
  const lock = `/tmp/.X${n}-lock`;
  t.after(() => rmSync(lock, { force: true }));
  writeFileSync(lock, `${String(deadPid()).padStart(10)}\n`);
  assert.equal(displayInUse(n), false, 'a lock whose pid is gone is stale');
  writeFileSync(lock, `${String(process.pid).padStart(10)}\n`);
  assert.equal(displayInUse(n), true, 'a lock naming a live process takes the display');
});

it('x-session: stop() leaves no lock file behind (Xvfb is stopped with SIGTERM)', async () => {
  const x = await startXSession();
  const n = Number(x.display.slice(1));
  assert.ok(existsSync(`/tmp/.X${n}-lock`), 'Xvfb holds its lock while running');
  await x.stop();
  assert.equal(existsSync(`/tmp/.X${n}-lock`), false, 'the lock is gone after stop()');
  assert.equal(existsSync(`/tmp/.X11-unix/X${n}`), false, 'the socket is gone after stop()');
});
