/**
 * Screenshots from the host framebuffer file (lease.framebuffer()) on a REAL debian-x11
 * container: provider-docker shares Xvfb's -fbdir through a tmpfs, the adapter reads it without
 * a guest process. The frame must be the one `xwd` in the guest gives, and must show what the
 * desktop draws. The container's /tmp/.X11-unix is shared the same way: clicks, keys and text go
 * to the X server in process (XTEST), with no guest command, and land where asked. Needs the golden image (`vmhub-server golden build debian-x11`): without it the
 * suite FAILS with the provider's reason.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type AdapterContext, type GuestChannel, type MachineRef, type OpenSession, type Provider, type RawScreen } from '@vmhub/core';
import { debianX11Template as template } from '@vmhub/provider-docker';
import { callContext, testLease, until } from '@vmhub/test-kit';
import { createX11Adapter } from '../src/index.ts';
import { readXwdFrame } from '../src/framebuffer.ts';
import { recordingChannel, startDebianX11, stopDebianX11 } from './debian-x11.ts';
import { settled } from './desktop.ts';

const instance = `x11fb${randomBytes(3).toString('hex')}`;
const lease = randomUUID();
let provider: Provider;
let machine: MachineRef | undefined;
let channel: GuestChannel;
const calls: string[][] = [];
const sessions: OpenSession[] = [];

/** A session on the machine; `framebuffer: false` leaves lease.framebuffer out (the guest path). */
async function open(options: { framebuffer: boolean; adapter?: Record<string, unknown> }): Promise<{ session: OpenSession; ctx: AdapterContext }> {
  const lc = testLease({
    lease_id: lease, machine: machine!, template, channel: recordingChannel(channel, calls),
    ...(options.framebuffer ? { framebuffer: () => provider.framebuffer!(machine!, { template }) } : {}),
  });
  const session = await createX11Adapter(options.adapter ?? {}).open(lc);
  sessions.push(session);
  return { session, ctx: callContext(lc, 120_000) };
}

const pixel = (s: RawScreen, x: number, y: number) => [...s.data.subarray((y * s.width + x) * 3, (y * s.width + x) * 3 + 3)];

describe('x11: screenshots from the host framebuffer (Xvfb -fbdir through provider-docker)', { timeout: 240_000 }, () => {
  before(async () => {
    ({ provider, machine, channel } = await startDebianX11(instance, lease));
  });
  after(async () => {
    for (const s of sessions) await s.dispose();
    await stopDebianX11({ provider, machine, channel });
  });

  it('the provider names an XWD file on the host, and a screenshot from it runs nothing in the guest', async () => {
    const fb = await provider.framebuffer!(machine!, { template });
    assert.equal(fb?.format, 'xwd', 'provider-docker shares the framebuffer of a local engine');
    const { session, ctx } = await open({ framebuffer: true });
    calls.length = 0;
    const shot = await session.screenshot!(ctx);
    assert.deepEqual([shot.width, shot.height, shot.format], [1280, 800, 'rgb']);
    assert.deepEqual(calls, [], 'no guest command for a framebuffer screenshot');
  });

  it('shows what the desktop draws: a red xterm appears in the next frame where X put it', async () => {
    const { session, ctx } = await open({ framebuffer: true });
    const title = `fb-${randomBytes(3).toString('hex')}`;
    const r = await session.launch!(ctx, { app: 'xterm', args: ['-T', title, '-bg', 'red', '-geometry', '30x8+300+200', '-e', 'sleep', '120'], wait_seconds: 15 });
    assert.ok(r.window, 'xterm opened');
    const inside = { x: r.window.x + Math.floor(r.window.width / 2), y: r.window.y + r.window.height - 5 };
    calls.length = 0;
    const red = await until(async () => {
      const shot = await session.screenshot!(ctx);
      const [rr, g, b] = pixel(shot, inside.x, inside.y);
      return rr! > 200 && g! < 60 && b! < 60 ? true : undefined;
    }, 'red in the framebuffer', 10_000, 100);
    assert.equal(red, true);
    // Seen in the framebuffer, not through a fallback: not one guest command while polling.
    assert.deepEqual(calls, [], 'every frame came from the host framebuffer');
    await session.close!(ctx, { window: r.window.id });
  });

  it('is the frame `xwd` in the guest gives, pixel for pixel', async () => {
    const fromFb = await open({ framebuffer: true });
    const fromGuest = await open({ framebuffer: false });
    // A static screen (no blinking cursor on the root window): the two paths must agree exactly.
    // Taken a few times, in case something was still drawing between the two.
    let same = false;
    for (let i = 0; i < 5 && !same; i++) {
      const a = await fromFb.session.screenshot!(fromFb.ctx);
      calls.length = 0;
      const b = await fromGuest.session.screenshot!(fromGuest.ctx);
      assert.ok(calls.some((argv) => argv.join(' ').includes('xwd')), 'the session without a framebuffer ran xwd in the guest');
      assert.deepEqual([a.width, a.height], [b.width, b.height]);
      same = a.data.equals(b.data);
    }
    assert.ok(same, 'the framebuffer frame differs from xwd\'s on a static screen');
  });

  it('clicks go through the shared X socket (XTEST): no guest command; the pointer lands and the window under it takes focus', async () => {
    const fb = await provider.framebuffer!(machine!, { template });
    assert.ok(fb?.x11_socket && statSync(fb.x11_socket).isSocket(), `provider-docker shares the X server's socket (${fb?.x11_socket})`);
    const { session, ctx } = await open({ framebuffer: true });
    const title = `xt-${randomBytes(3).toString('hex')}`;
    const typed = `/tmp/${title}.txt`;
    const r = await session.launch!(ctx, { app: 'xterm', args: ['-T', title, '-geometry', '40x10+420+260', '-e', 'sh', '-c', `stty -icanon -echo; exec cat > ${typed}`], wait_seconds: 15 });
    assert.ok(r.window, 'xterm opened');
    const at = { x: r.window.x + 40, y: r.window.y + 30 };
    await session.screenshot!(ctx); // the session learns the screen (and opens nothing in the guest)
    calls.length = 0;
    await session.click!(ctx, { ...at, button: 'left', count: 1, modifiers: ['shift'] });
    assert.deepEqual(calls, [], 'the click ran no guest command');
    const where = (await channel.exec(['xdotool', 'getmouselocation'], { env: { DISPLAY: ':0' } })).stdout.toString('utf8');
    assert.match(where, new RegExp(`x:${at.x} y:${at.y} `), where);
    const focused = (await channel.exec(['xdotool', 'getwindowfocus', 'getwindowname'], { env: { DISPLAY: ':0' } })).stdout.toString('utf8').trim();
    assert.equal(focused, title, 'the window under the click took focus');
    // The shift held for the click was released: a key pressed now types lowercase.
    await channel.exec(['xdotool', 'key', 'a'], { env: { DISPLAY: ':0' } });
    assert.equal(await until(async () => ((await channel.getFile(typed).catch(() => Buffer.alloc(0))).toString('utf8') || undefined), 'the key in the file', 10_000, 100), 'a');
    await session.close!(ctx, { window: r.window.id });
  });

  it('scroll and drag go through XTEST too: no guest command; xev sees the wheel and the press → release at the two points', async () => {
    const { session, ctx } = await open({ framebuffer: true });
    const log = `/tmp/xev-${randomBytes(3).toString('hex')}.log`;
    const r = await session.launch!(ctx, { app: 'sh', args: ['-c', `exec stdbuf -oL xev -geometry 300x200+600+100 -event button > ${log}`], wait_seconds: 15 });
    assert.ok(r.window, 'xev opened');
    const c = { x: r.window.x + 150, y: r.window.y + 100 };
    await session.screenshot!(ctx);
    calls.length = 0;
    await session.scroll!(ctx, { ...c, direction: 'down', amount: 3 });
    await session.drag!(ctx, { from: { x: c.x - 60, y: c.y - 40 }, to: { x: c.x + 70, y: c.y + 50 }, button: 'left' });
    assert.deepEqual(calls, [], 'scroll and drag ran no guest command');
    const events = await until(async () => {
      const text = (await channel.getFile(log).catch(() => Buffer.alloc(0))).toString('utf8');
      const found = [...text.matchAll(/(ButtonPress|ButtonRelease) event[\s\S]*?root:\((\d+),(\d+)\)[\s\S]*?button (\d+)/g)].map((m) => `${m[1]} ${m[4]} ${m[2]},${m[3]}`);
      return found.length >= 8 ? found : undefined;
    }, 'xev to log the events', 10_000, 100);
    const wheel = events.filter((e) => e.startsWith('ButtonPress 5 '));
    assert.equal(wheel.length, 3, `three wheel-down clicks: ${events.join('; ')}`);
    assert.ok(wheel.every((e) => e.endsWith(` ${c.x},${c.y}`)), `the wheel at the point: ${wheel.join('; ')}`);
    assert.ok(events.includes(`ButtonPress 1 ${c.x - 60},${c.y - 40}`), `the drag presses at its start: ${events.join('; ')}`);
    assert.ok(events.includes(`ButtonRelease 1 ${c.x + 70},${c.y + 50}`), `and releases at its end: ${events.join('; ')}`);
    await session.close!(ctx, { window: r.window.id });
  });

  /** An xterm at a fixed place whose keystrokes `cat` copies, raw, into `/tmp/<title>.txt`. */
  async function typingTarget(session: OpenSession, ctx: AdapterContext, geometry = '60x10+420+260') {
    const title = `kb-${randomBytes(3).toString('hex')}`;
    const file = `/tmp/${title}.txt`;
    const r = await session.launch!(ctx, { app: 'xterm', args: ['-T', title, '-geometry', geometry, '-e', 'sh', '-c', `stty -icanon -echo; exec cat > ${file}`], wait_seconds: 15 });
    assert.ok(r.window, 'xterm opened');
    await session.screenshot!(ctx);
    await session.click!(ctx, { x: r.window.x + 20, y: r.window.y + 20, button: 'left', count: 1, modifiers: [] });
    const read = async () => (await channel.getFile(file).catch(() => Buffer.alloc(0))).toString('utf8');
    return { window: r.window, file, read };
  }

  /** Keycodes of the guest X server that carry no symbol (the perl keymap client's dump). */
  async function freeKeycodes(): Promise<number> {
    const { KEYMAP_PL } = await import('../src/keymap.ts');
    const dump = (await channel.exec(['perl', '-e', KEYMAP_PL, 'dump'], { env: { DISPLAY: ':0' } })).stdout.toString('utf8');
    return dump.split('\n').filter((l) => /^keycode \d+ =$/.test(l)).length;
  }

  it('vm_type and vm_key go through XTEST: no guest command; ASCII, shifted symbols, Unicode, Return and Tab arrive exact, chords have their effect, nothing is left held or bound', async () => {
    const freeBefore = await freeKeycodes();
    const { session, ctx } = await open({ framebuffer: true });
    const t = await typingTarget(session, ctx);
    const text = 'Hello, World! ~`$(id);|&<>"\'\\ é ü ✓ Привет 粘贴\tend';
    calls.length = 0;
    await session.type!(ctx, { text: `${text}\n` });
    // ctrl+u is the terminal's kill-line only in canonical mode: here cat gets the raw byte 0x15.
    await session.key!(ctx, { keys: 'x BackSpace ctrl+u shift+a A plus Return' });
    assert.deepEqual(calls, [], 'typing and keys ran no guest command');
    const expected = `${text}\nx\x7f\x15AA+\n`;
    assert.equal(await until(async () => { const got = await t.read(); return got.length >= expected.length ? got : undefined; }, 'the typed text in the file', 10_000, 100), expected);
    await session.dispose();
    // The session's spare keycodes were given back; shift was not left held (xdotool types lowercase).
    assert.equal(await freeKeycodes(), freeBefore, 'every spare keycode bound for é ü ✓ … is free again after dispose');
    await channel.exec(['xdotool', 'key', 'b'], { env: { DISPLAY: ':0' } });
    assert.equal(await until(async () => { const got = await t.read(); return got.endsWith('b') ? got : undefined; }, 'the last key', 10_000, 100), `${expected}b`);
  });

  it('vm_type through XTEST: more distinct characters than spare keycodes all arrive, in order', async () => {
    const { session, ctx } = await open({ framebuffer: true });
    const t = await typingTarget(session, ctx, '60x10+420+460');
    const spare = await freeKeycodes();
    const text = Array.from({ length: spare + 15 }, (_, i) => String.fromCodePoint(0x4e00 + i * 7)).join('') + ' done ✓';
    calls.length = 0;
    await session.type!(ctx, { text });
    assert.deepEqual(calls, [], 'no guest command');
    assert.equal(await until(async () => { const got = await t.read(); return got.endsWith('✓') ? got : undefined; }, 'all characters', 10_000, 100), text);
  });

  it('vm_type through XTEST cancelled mid-text: the call ends at once, typing stops there, no key is left held', async () => {
    const { session, ctx } = await open({ framebuffer: true });
    const t = await typingTarget(session, ctx, '60x10+420+60');
    const controller = new AbortController();
    const text = 'abcdefghij'.repeat(40); // 400 keys at 12 ms: about 5 s
    const started = Date.now();
    setTimeout(() => controller.abort(), 400);
    await assert.rejects(session.type!({ ...ctx, signal: controller.signal }, { text }), (err: unknown) => VmhubError.is(err) && err.code === 'TIMEOUT' && /characters typed/.test(err.message));
    assert.ok(Date.now() - started < 1500, `the call ended ${Date.now() - started} ms after it started`);
    const got = await until(async () => { const a = await t.read(); await sleep(300); const b = await t.read(); return a === b && a.length > 0 ? a : undefined; }, 'typing to stop', 10_000, 50);
    assert.ok(got.length > 5 && got.length < text.length, `typing stopped part-way: ${got.length} of ${text.length}`);
    assert.equal(got, text.slice(0, got.length), 'what arrived is the text\'s beginning, in order');
    // No key auto-repeats: nothing more arrives, and the keyboard is up (a key types once).
    await channel.exec(['xdotool', 'key', 'Z'], { env: { DISPLAY: ':0' } });
    assert.equal(await settled(t.read), `${got}Z`);
  });

  it('input_xtest: false clicks through xdotool in the guest', async () => {
    const { session, ctx } = await open({ framebuffer: true, adapter: { input_xtest: false } });
    await session.screenshot!(ctx);
    calls.length = 0;
    await session.click!(ctx, { x: 10, y: 10, button: 'left', count: 1, modifiers: [] });
    assert.ok(calls.some((argv) => argv.includes('xdotool') || argv.join(' ').includes('xdotool')), `xdotool ran in the guest: ${JSON.stringify(calls)}`);
  });

  it('readXwdFrame: a missing file or one that is not XWD gives no frame (the caller falls back)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vmhub-fb-'));
    try {
      assert.equal(await readXwdFrame(join(dir, 'absent'), (d) => d), undefined);
      writeFileSync(join(dir, 'junk'), randomBytes(4096));
      assert.equal(await readXwdFrame(join(dir, 'junk'), (d) => d), undefined);
      const fb = await provider.framebuffer!(machine!, { template });
      const frame = await readXwdFrame(fb!.path, (d) => Buffer.from(d));
      assert.ok(frame && frame.length > 1280 * 800 * 4, 'the live framebuffer reads as one stable frame');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
