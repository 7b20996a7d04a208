import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { it } from 'node:test';
import { LeaseGates } from './lease-gate.ts';

const never = new AbortController().signal;

it('lease gate: an exclusive operation waits for the calls in flight, and calls asked meanwhile wait for it', async () => {
  const gates = new LeaseGates();
  const order: string[] = [];
  const { leave } = await gates.enter('a', never);
  const restore = gates.exclusive('a', 'restore', 5_000, async () => { order.push('restore'); await sleep(20); order.push('restored'); return 7; });
  await sleep(10);
  const held = gates.enter('a', never).then((l) => { order.push(`held call (waited: ${l.waited})`); l.leave(); });
  // Another lease is not held up.
  (await gates.enter('b', never)).leave();
  order.push('in flight done');
  leave();
  assert.equal(await restore, 7);
  await held;
  assert.deepEqual(order, ['in flight done', 'restore', 'restored', 'held call (waited: true)']);
  assert.equal(gates.size, 0, 'no gate is kept once nothing uses it');
});

it('lease gate: calls still in flight after the wait are LOCK_CONTENTION, and the operation never ran', async () => {
  const gates = new LeaseGates();
  const { leave } = await gates.enter('a', never);
  let ran = false;
  await assert.rejects(gates.exclusive('a', 'vm_snapshot restore', 30, async () => { ran = true; }), (err: { code?: string; message?: string }) => err.code === 'LOCK_CONTENTION' && /1 call on lease a still running/.test(err.message ?? ''));
  assert.equal(ran, false);
  // The gate is open again: a new call passes at once.
  (await gates.enter('a', never)).leave();
  leave();
  leave(); // a second leave is ignored
  assert.equal(gates.size, 0);
});

it('lease gate: two exclusive operations on one lease run one after the other; a held bind gives up with its signal', async () => {
  const gates = new LeaseGates();
  const order: string[] = [];
  const first = gates.exclusive('a', 'one', 1_000, async () => { order.push('one'); await sleep(30); order.push('one done'); });
  const second = gates.exclusive('a', 'two', 1_000, async () => { order.push('two'); });
  const ac = new AbortController();
  const gaveUp = assert.rejects(gates.pass('a', ac.signal), /stop/);
  ac.abort(new Error('stop'));
  await gaveUp;
  await Promise.all([first, second]);
  assert.deepEqual(order, ['one', 'one done', 'two']);
  assert.equal(gates.size, 0);
});
