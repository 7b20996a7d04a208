import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { procInfo, verifyQemu } from './proc.ts';

test('qemu: a pid is ours only with matching start time, qemu argv and -name', async (t) => {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  await once(child, 'spawn');
  const info = await procInfo(child.pid!);
  assert.ok(info, 'sleep is visible in /proc');
  assert.deepEqual(info.argv, ['sleep', '600']);
  assert.equal((await verifyQemu(child.pid!, info.startTime, 'vmhub-x-1')).verdict, 'mismatch');
  assert.equal((await verifyQemu(child.pid!, '1', 'vmhub-x-1')).verdict, 'mismatch');
  child.kill('SIGKILL');
  await once(child, 'exit');
  assert.equal((await verifyQemu(child.pid!, info.startTime, 'vmhub-x-1')).verdict, 'gone');
  assert.equal((await verifyQemu(1, '0', 'x')).verdict, 'gone', 'pid 1 is never considered');
});
