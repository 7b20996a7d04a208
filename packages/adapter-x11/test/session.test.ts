/**
 * x11: a lease session owns everything per-lease, and dispose ends it. Open a session, use it
 * (screenshot, probe, type), dispose: the disposed session answers LEASE_EXPIRED and runs nothing
 * in the guest, the keycodes vm_type bound are free again in the X server, and a fresh session of
 * the SAME lease id learns every fact again — counted in the guest commands it runs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '@vmhub/test-kit';
import { createHostChannel } from '@vmhub/test-kit/host-channel';
import { rejectsWith } from '@vmhub/test-kit/errors';
import { createX11Adapter } from '../src/index.ts';
import { KEYMAP_PL } from '../src/keymap.ts';
import { parseKeymap } from '../src/x11-type.ts';
import { callContext, leaseContext } from './context.ts';
import { startXSession, type XSession } from './x-session.ts';

let x: XSession;
before(async () => { x = await startXSession(); });
after(async () => { await x?.stop(); });

describe('x11: session lifecycle', () => {
  it('nothing per-lease survives dispose; a new session of the same lease learns it all again', async () => {
    const channel = createHostChannel({ home: x.home });
    const adapter = createX11Adapter({ display: x.display });
    const lease = leaseContext(channel, { display: x.display });
    const ctx = callContext(lease, 120_000);
    /** The guest commands `fn` ran. */
    const commands = async (fn: () => Promise<unknown>): Promise<string[][]> => {
      const n = channel.calls.length;
      await fn();
      return channel.calls.slice(n);
    };
    /** Keycodes the X server has bound to keysym `sym` now (read on the host, not through the adapter). */
    const boundTo = (sym: number) => {
      const dump = execFileSync('perl', ['-e', KEYMAP_PL, 'dump'], { env: { ...process.env, ...x.env }, timeout: 5000 }).toString('utf8');
      return [...parseKeymap(dump).lines].filter(([, line]) => line.split(' ')[0] === `0x${sym.toString(16)}`).map(([code]) => code).sort();
    };
    const file = join(x.home, `sink-${randomBytes(4).toString('hex')}.txt`);
    const typed = () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
    const unboundBefore = { e: boundTo(0xe9), check: boundTo(0x1002713) };

    const s1 = await adapter.open(lease);
    // The first screenshot learns the screen size (xwininfo -root), the next one does not.
    const shot1 = await commands(() => s1.screenshot!(ctx));
    assert.deepEqual([shot1.length, shot1[0]?.[0]], [2, 'xwininfo'], JSON.stringify(shot1.map((a) => a[0])));
    assert.equal((await commands(() => s1.screenshot!(ctx))).length, 1, 'the screen size is kept for the session');
    assert.equal((await commands(() => s1.probe!(ctx))).length, 1, 'the first probe asks the guest');
    assert.equal((await commands(() => s1.probe!(ctx))).length, 0, 'the probe is kept for the session');

    const title = `session-sink-${randomBytes(3).toString('hex')}`;
    x.spawnX(['xterm', '-T', title, '-e', 'sh', '-c', `stty -icanon -echo; exec cat > '${file}'`]);
    const w = await until(async () => (await s1.listWindows!(ctx)).find((v) => v.title === title && v.visible), 'sink mapped', 8000, 100);
    await until(async () => ((await s1.focus!(ctx, { window: w.id })).focused ? true : undefined), 'sink focused', 6000, 100);
    await s1.type!(ctx, { text: 'é✓' });
    await until(() => (typed() === 'é✓' ? true : undefined), 'é✓ typed', 5000, 50);
    const bound = { e: boundTo(0xe9), check: boundTo(0x1002713) };
    assert.equal(bound.e.length, unboundBefore.e.length + 1, 'vm_type bound é to a spare keycode');
    assert.equal(bound.check.length, unboundBefore.check.length + 1, 'vm_type bound ✓ to a spare keycode');

    await s1.dispose();
    assert.equal(s1.disposed, true);
    assert.deepEqual({ e: boundTo(0xe9), check: boundTo(0x1002713) }, unboundBefore, 'dispose gave the bound keycodes back');
    // Core refuses every method of a disposed session; nothing reaches the guest.
    const quiet = channel.calls.length;
    await rejectsWith(s1.screenshot!(ctx), 'LEASE_EXPIRED', /has ended/);
    await rejectsWith(s1.type!(ctx, { text: 'never' }), 'LEASE_EXPIRED', /has ended/);
    await rejectsWith(s1.dispatch!(ctx, { verb: 'mouse_location', args: {} }), 'LEASE_EXPIRED', /has ended/);
    assert.equal(channel.calls.length, quiet, 'a disposed session runs no guest command');

    // Same lease id, new session: every fact is learned again.
    const s2 = await adapter.open(leaseContext(channel, { display: x.display }, lease.lease_id));
    const shot2 = await commands(() => s2.screenshot!(ctx));
    assert.deepEqual([shot2.length, shot2[0]?.[0]], [2, 'xwininfo'], 'the new session measures the screen again');
    assert.equal((await commands(() => s2.probe!(ctx))).length, 1, 'the new session probes again');
    const retype = await commands(() => s2.type!(ctx, { text: 'é' }));
    assert.ok(retype.some((argv) => argv.includes('map')), 'the new session binds é again: no binding was inherited');
    await until(() => (typed() === 'é✓é' ? true : undefined), 'é typed again', 5000, 50);
    await s2.dispose();
    assert.deepEqual({ e: boundTo(0xe9), check: boundTo(0x1002713) }, unboundBefore, 'the second dispose gave its keycode back too');
  });
});
