import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { VmhubError, type AdapterContext, type ExecOptions, type GuestChannel } from '@vmhub/core';
import { callContext, testLease } from '@vmhub/test-kit';
import plugin from './index.ts';

/** A channel that records every exec's options and answers like a killed command once aborted. */
function recordingTarget(signal: AbortSignal): { ctx: AdapterContext; seen: { argv: string[]; options: ExecOptions }[] } {
  const seen: { argv: string[]; options: ExecOptions }[] = [];
  const channel: GuestChannel = {
    home: '/root',
    async exec(argv, options = {}) {
      seen.push({ argv, options });
      const killed = options.signal?.aborted === true;
      return { exit_code: killed ? null : 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: killed, truncated: false };
    },
    async putFile() {},
    async getFile() { return Buffer.alloc(0); },
    async close() {},
  };
  const ctx = callContext(testLease({ template: { provider: 'qemu', adapter: 'console' }, channel }), signal);
  return { ctx, seen };
}

test('console: exec and the clone fallback pass the call\'s signal to the channel', async () => {
  const ac = new AbortController();
  const { ctx, seen } = recordingTarget(ac.signal);
  const session = await plugin.create({}).open(ctx);
  await session.exec!(ctx, { argv: ['true'], timeout_ms: 1000, max_output_bytes: 100 });
  await session.cloneRepo!(ctx, { dest: '/root/r', archive: Readable.from([Buffer.from('tar bytes')]) });
  assert.deepEqual(seen.map((s) => s.argv[0]), ['true', 'mkdir', 'tar']);
  // The adapter kit hands each call a signal that aborts with the call's (and with the session's end).
  ac.abort();
  for (const s of seen) assert.equal(s.options.signal?.aborted, true, `${s.argv[0]} got the call's signal`);
});

test('console: a cancelled exec resolves timed_out; a cancelled clone is TIMEOUT and starts nothing more', async () => {
  const ac = new AbortController();
  ac.abort();
  const { ctx, seen } = recordingTarget(ac.signal);
  const session = await plugin.create({}).open(ctx);
  const r = await session.exec!(ctx, { argv: ['sleep', '300'], timeout_ms: 600_000, max_output_bytes: 100 });
  assert.deepEqual([r.exit_code, r.timed_out], [null, true]);
  await assert.rejects(session.cloneRepo!(ctx, { dest: '/root/r', archive: Readable.from([Buffer.from('x')]) }), (e: unknown) => VmhubError.is(e) && e.code === 'TIMEOUT');
  assert.deepEqual(seen.map((s) => s.argv[0]), ['sleep'], 'the clone ran nothing in the guest');
});
