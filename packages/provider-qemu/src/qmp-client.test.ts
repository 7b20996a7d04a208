import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { QmpClient, QmpError } from './qmp-client.ts';
import { fakeSocketServer } from '../test/fake-qemu.ts';

test('qemu: QMP client negotiates capabilities, matches ids, ignores events', async (t) => {
  const seen: string[] = [];
  const fake = await fakeSocketServer('qmp', (msg, sock) => {
    seen.push(msg.execute);
    sock.write(JSON.stringify({ event: 'RESUME', timestamp: { seconds: 1, microseconds: 0 } }) + '\n');
    if (msg.execute === 'query-status') {
      sock.write(JSON.stringify({ return: { status: 'stale' }, id: 'someone-else' }) + '\n');
      return { return: { status: 'running' }, id: msg.id };
    }
    if (msg.execute === 'bad') return { error: { class: 'CommandNotFound', desc: 'The command bad has not been found' }, id: msg.id };
    if (msg.execute === 'hang') return undefined;
    return { return: {}, id: msg.id };
  });
  t.after(() => fake.close());
  const c = await QmpClient.connect(fake.path, { protocol: 'qmp', timeoutMs: 2000 });
  assert.deepEqual(seen, ['qmp_capabilities']);
  const [a, b] = await Promise.all([c.execute('query-status'), c.execute('query-status')]);
  assert.deepEqual(a, { status: 'running' });
  assert.deepEqual(b, { status: 'running' });
  await assert.rejects(c.execute('bad'), (err: unknown) => err instanceof QmpError && err.errorClass === 'CommandNotFound');
  await assert.rejects(c.execute('hang', undefined, 150), (err: unknown) => VmhubError.is(err) && err.code === 'TIMEOUT');
  assert.equal(c.closed, true, 'a timed-out command poisons the connection');
});

test('qemu: QMP connect without a greeting times out with a clear error', async (t) => {
  const fake = await fakeSocketServer('qga', () => undefined);
  t.after(() => fake.close());
  await assert.rejects(QmpClient.connect(fake.path, { protocol: 'qmp', timeoutMs: 200 }), /no QMP greeting/);
  await assert.rejects(QmpClient.connect('/nonexistent/qmp.sock', { protocol: 'qmp', timeoutMs: 200 }), /cannot connect to QMP socket/);
});

test('qemu: guest-agent client syncs past stale replies', async (t) => {
  const fake = await fakeSocketServer('qga', (msg, sock) => {
    if (msg.execute === 'guest-sync') {
      sock.write(JSON.stringify({ return: { pid: 99 } }) + '\n'); // stale reply from an earlier client
      return { return: msg.arguments!.id };
    }
    if (msg.execute === 'guest-ping') return { return: {} };
    return { error: { class: 'GenericError', desc: 'nope' } };
  });
  t.after(() => fake.close());
  const c = await QmpClient.connect(fake.path, { protocol: 'qga', timeoutMs: 2000 });
  assert.deepEqual(await c.execute('guest-ping'), {});
  c.close();
});
