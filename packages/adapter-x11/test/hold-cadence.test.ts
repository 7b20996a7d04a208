/**
 * x11 on a REAL Xvfb (issue 33, input): keys held with vm_key {action: "down"} and released with
 * "up", through XTEST (the lease shares the X socket) and through xdotool in the guest; held keys
 * released when the session ends and when a person takes over (releaseHeld, from another session
 * of the same lease); vm_type {cadence: "human"}; window-relative clicks (core's windowPoint over
 * the adapter's window list); vm_get_clipboard. Effects are read from the X server itself: its
 * keyboard state (QueryKeymap over @vmhub/x11-client), text arriving in a file through an xterm,
 * xev's report of a click.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdapterContext, LeaseContext, OpenSession } from '@vmhub/core';
import { HUMAN_CADENCE_MAX_CHARS, windowPoint } from '@vmhub/core/router';
import { callContext, testLease, until } from '@vmhub/test-kit';
import { rejectsWith } from '@vmhub/test-kit/errors';
import { XConnection } from '@vmhub/x11-client';
import { createX11Adapter } from '../src/index.ts';
import { fileText, startDesktop, type Desktop } from './desktop.ts';
import { routerOn } from './router.ts';

let d: Desktop;
let xtestLease: LeaseContext;
let xtest: OpenSession;
let xctx: AdapterContext;
let probe: XConnection;
before(async () => {
  d = await startDesktop();
  const socket = `/tmp/.X11-unix/X${d.x.display.slice(1)}`;
  // The same display, shared as provider-docker shares it: input goes over XTEST, no xdotool.
  xtestLease = testLease({ channel: d.channel, template: { id: 'x11-host', adapter: 'x11', adapter_options: { display: d.x.display, screenshot_framebuffer: false } }, framebuffer: async () => ({ format: 'xwd', path: '/nonexistent', x11_socket: socket }) });
  xtest = await createX11Adapter({ display: d.x.display }).open(xtestLease);
  xctx = callContext(xtestLease, 10 * 60_000);
  probe = await XConnection.open(socket);
});
after(async () => { probe?.close(); await xtest?.dispose(); await d?.stop(); });

const rand = () => randomBytes(4).toString('hex');
const readLineTo = (file: string) => `IFS= read -r line; printf %s "$line" > '${file}.tmp' && mv '${file}.tmp' '${file}'; sleep 2`;
const xdotoolCalls = (from: number) => d.channel.calls.slice(from).filter((argv) => argv.includes('xdotool'));

/** The keycodes the X server holds down now (QueryKeymap). */
async function keysDown(): Promise<number[]> {
  const reply = await probe.request(Buffer.from([44, 0, 1, 0]));
  const bits = reply.subarray(8, 40);
  const down: number[] = [];
  for (let code = 8; code < 256; code++) if (bits[code >> 3]! & (1 << (code & 7))) down.push(code);
  return down;
}

for (const path of ['xtest', 'xdotool'] as const) {
  describe(`x11: keys held (${path})`, () => {
    const session = () => (path === 'xtest' ? xtest : d.session);
    const ctx = () => (path === 'xtest' ? xctx : d.ctx);

    it('shift held: letters pressed meanwhile arrive uppercase, lowercase again after up', async () => {
      const file = join(d.x.home, `hold-${path}-${rand()}.txt`);
      await d.term(`hold-${rand()}`, readLineTo(file));
      const calls = d.channel.calls.length;
      await session().keyHold!(ctx(), { keys: 'shift', action: 'down' });
      await session().key!(ctx(), { keys: 'a b c' });
      await session().keyHold!(ctx(), { keys: 'shift', action: 'up' });
      await session().key!(ctx(), { keys: 'd Return' });
      assert.equal(await fileText(file), 'ABCd');
      if (path === 'xtest') assert.deepEqual(xdotoolCalls(calls), [], 'held and released over XTEST, no xdotool');
      assert.deepEqual(await keysDown(), [], 'nothing left down');
    });

    it('ctrl+shift down shows in the server\'s keymap; up releases both; a click meanwhile carries the modifiers', async () => {
      const log = join(d.x.home, `xev-${rand()}.log`);
      const title = `xev-hold-${path}-${rand()}`;
      d.x.spawnX(['sh', '-c', `exec xev -name '${title}' -geometry 200x150+600+300 -event button > '${log}'`]);
      const w = await d.window(title);
      await session().keyHold!(ctx(), { keys: 'ctrl+shift', action: 'down' });
      const held = await keysDown();
      assert.ok(held.length >= 2, `ctrl and shift are down (keycodes ${held.join(', ')})`);
      await session().click!(ctx(), { x: w.x + 20, y: w.y + 30, button: 'left', count: 1, modifiers: [] });
      await session().keyHold!(ctx(), { keys: 'ctrl+shift', action: 'up' });
      assert.deepEqual(await keysDown(), []);
      const state = await until(() => { const m = /ButtonPress event[^\n]*\n[^\n]*\n\s*state (0x[0-9a-f]+)/.exec(readFileSync(log, 'utf8')); return m ? Number(m[1]) : undefined; }, 'xev press', 5000);
      assert.equal(state & 0x5, 0x5, `the click arrived with Shift (0x1) and Control (0x4): state ${state.toString(16)}`);
      await d.session.close!(d.ctx, { window: w.id });
    });

    it('keys still held are released when the session ends', async () => {
      const lease: LeaseContext = path === 'xtest' ? { ...xtestLease, lease_id: `test-${rand()}` } : { ...d.lease, lease_id: `test-${rand()}` };
      const other = await createX11Adapter({ display: d.x.display }).open(lease);
      await other.keyHold!(callContext(lease), { keys: 'shift alt', action: 'down' });
      assert.equal((await keysDown()).length, 2, 'shift and alt down');
      await other.dispose();
      assert.deepEqual(await keysDown(), [], 'released by dispose');
    });
  });
}

describe('x11: a person takes over', () => {
  it('releaseHeld from another session of the lease (another server process) lets go of the agent\'s keys', async () => {
    await xtest.keyHold!(xctx, { keys: 'ctrl', action: 'down' });
    assert.equal((await keysDown()).length, 1);
    const person = await createX11Adapter({ display: d.x.display }).open({ ...d.lease });
    await person.releaseHeld!(callContext(d.lease));
    assert.deepEqual(await keysDown(), [], 'released at take-over');
    await person.dispose();
    // The agent's session forgot it too: its end presses and releases nothing more.
    await xtest.keyHold!(xctx, { keys: 'ctrl', action: 'up' });
    assert.deepEqual(await keysDown(), []);
  });

  it('a key with no keycode cannot be held: INVALID_REQUEST, nothing pressed', async () => {
    await rejectsWith(xtest.keyHold!(xctx, { keys: 'U+2713', action: 'down' }), 'INVALID_REQUEST', /cannot be held/);
    assert.deepEqual(await keysDown(), []);
  });
});

describe('x11: vm_type {cadence: "human"} through the router', () => {
  it('delivers every character, paced: at least the minimum pauses', async () => {
    const call = routerOn(d.adapter, d.session, d.ctx);
    const file = join(d.x.home, `human-${rand()}.txt`);
    await d.term(`human-${rand()}`, readLineTo(file));
    const text = 'Hello, world. ok é✓';
    const started = Date.now();
    await call('vm_type', { text: `${text}\n`, cadence: 'human' });
    const took = Date.now() - started;
    const chars = [...`${text}\n`];
    const breaks = chars.slice(0, -1).filter((c) => /[\s.,;:!?]/u.test(c)).length;
    const min = (chars.length - 1) * 30 + breaks * 80;
    assert.equal(await fileText(file), text);
    assert.ok(took >= min, `took ${took} ms, at least ${min} ms of pauses`);
  });

  it(`over ${HUMAN_CADENCE_MAX_CHARS} characters: INVALID_REQUEST naming the limit, nothing typed`, async () => {
    const call = routerOn(d.adapter, d.session, d.ctx);
    const before = d.channel.calls.length;
    await rejectsWith(call('vm_type', { text: 'x'.repeat(HUMAN_CADENCE_MAX_CHARS + 1), cadence: 'human' }), 'INVALID_REQUEST', new RegExp(`at most ${HUMAN_CADENCE_MAX_CHARS} characters`));
    assert.deepEqual(xdotoolCalls(before), []);
  });
});

describe('x11: clicks relative to a window (windowPoint)', () => {
  it('lands at the client origin + (x, y): xev reports the window-relative point', async () => {
    const log = join(d.x.home, `xev-${rand()}.log`);
    const title = `xev-win-${rand()}`;
    d.x.spawnX(['sh', '-c', `exec xev -name '${title}' -geometry 260x180+300+200 -event button > '${log}'`]);
    const w = await d.window(title);
    for (const ref of [title, w.id, String(Number.parseInt(w.id, 16))]) {
      const p = await windowPoint(d.session, d.ctx, ref, { x: 17, y: 23 });
      assert.deepEqual([p.x, p.y, p.window], [w.x + 17, w.y + 23, w.id], `by ${ref}`);
    }
    const p = await windowPoint(xtest, xctx, title, { x: 17, y: 23 });
    await xtest.click!(xctx, { x: p.x, y: p.y, button: 'left', count: 1, modifiers: [] });
    const at = await until(() => { const m = /ButtonPress event[^\n]*\n[^\n]*\((-?\d+),(-?\d+)\), root:\((-?\d+),(-?\d+)\)/.exec(readFileSync(log, 'utf8')); return m ? m.slice(1).map(Number) : undefined; }, 'xev press', 5000);
    assert.deepEqual(at, [17, 23, w.x + 17, w.y + 23], 'window-relative (17, 23) and the screen point');
    await rejectsWith(windowPoint(d.session, d.ctx, `no such window ${rand()}`, { x: 1, y: 1 }), 'NOT_FOUND', /no window with id or exact title/);
    await rejectsWith(windowPoint(d.session, d.ctx, title, { x: 260, y: 5 }), 'INVALID_REQUEST', /outside window .* client area \(260×180\)/);
    await d.session.close!(d.ctx, { window: w.id });
  });
});

describe('x11: vm_get_clipboard through the router', () => {
  it('returns what xclip -i put on the clipboard, Unicode intact; empty reads as ""', async () => {
    const call = routerOn(d.adapter, d.session, d.ctx);
    const text = `clip ✓ Привет 粘贴 ${rand()}\nline two`;
    execFileSync('sh', ['-c', 'xclip -selection clipboard -i >/dev/null 2>&1'], { input: text, env: { ...process.env, ...d.x.env }, timeout: 3000 });
    const out = await call('vm_get_clipboard', {});
    assert.equal(out.text, text);
    assert.equal(out.truncated, undefined);
  });
});
