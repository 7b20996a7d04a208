/**
 * x11: AdapterSession.restored on a REAL Xvfb. A session learns its machine (framebuffer file,
 * XTEST connection on the X socket, screen size) and drives it; then the X server is killed and a
 * new one started on the same display — another size, another framebuffer directory — as after a
 * restore onto a new container. After restored(), the session drives the new server: screenshots
 * come from the new framebuffer at the new size, a click moves focus, typed text arrives in a file,
 * and the input goes through a new XTEST connection (no xdotool in the guest).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdapterContext, FramebufferSource, OpenSession, WindowInfo } from '@vmhub/core';
import { callContext, testLease, until } from '@vmhub/test-kit';
import { createHostChannel, type HostChannel } from '@vmhub/test-kit/host-channel';
import { createX11Adapter } from '../src/index.ts';
import { fileText } from './desktop.ts';
import { displayInUse } from './x-session.ts';

const home = mkdtempSync(join(tmpdir(), 'vmhub-restored-'));
let display = '';
let env: Record<string, string> = {};
let fb: FramebufferSource | undefined;
const procs: ChildProcess[] = [];
let channel: HostChannel;
let session: OpenSession;
let ctx: AdapterContext;

const probe = (argv: string[]) => { try { execFileSync(argv[0]!, argv.slice(1), { env: { ...process.env, ...env }, stdio: 'ignore', timeout: 5000 }); return true; } catch { return undefined; } };

/** Xvfb (with -fbdir) and openbox on `display`, the screen `size`; fb names them for the lease. */
async function startX(size: string, fbdir: string): Promise<void> {
  mkdirSync(fbdir, { recursive: true });
  const xvfb = spawn('Xvfb', [display, '-screen', '0', `${size}x24`, '-fbdir', fbdir, '-nolisten', 'tcp'], { stdio: 'ignore' });
  procs.push(xvfb);
  await until(() => probe(['xwininfo', '-root']), `Xvfb on ${display}`, 30_000, 100);
  procs.push(spawn('openbox', [], { env: { ...process.env, ...env }, stdio: 'ignore', cwd: home }));
  await until(() => probe(['wmctrl', '-m']), `openbox on ${display}`, 30_000, 100);
  fb = { format: 'xwd', path: join(fbdir, 'Xvfb_screen0'), x11_socket: `/tmp/.X11-unix/X${display.slice(1)}` };
}

async function stopX(): Promise<void> {
  for (const p of procs.splice(0).reverse()) {
    if (p.exitCode !== null || p.signalCode !== null) continue;
    const gone = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await gone;
  }
  rmSync(`/tmp/.X${display.slice(1)}-lock`, { force: true });
  rmSync(`/tmp/.X11-unix/X${display.slice(1)}`, { force: true });
}

/** An xterm titled `title` whose shell writes the line typed into it to `file`. */
async function term(title: string, file: string, geometry: string): Promise<WindowInfo> {
  procs.push(spawn('xterm', ['-T', title, '-geometry', geometry, '-e', 'sh', '-c', `IFS= read -r line; printf %s "$line" > '${file}.tmp' && mv '${file}.tmp' '${file}'; sleep 60`], { env: { ...process.env, ...env }, stdio: 'ignore', cwd: home }));
  return until(async () => (await session.listWindows!(ctx)).find((w) => w.title === title && w.visible), `window ${title}`, 30_000, 100);
}

const focused = async () => (await session.listWindows!(ctx)).find((w) => w.focused)?.title;

/** Click into `b` while `a` has focus: focus moves; then a line typed lands in b's file. Returns the guest commands it took. */
async function drive(tag: string): Promise<string[][]> {
  const [fa, fb2] = [join(home, `${tag}-a.txt`), join(home, `${tag}-b.txt`)];
  const a = await term(`${tag}-a`, fa, '40x8+20+20');
  const b = await term(`${tag}-b`, fb2, '40x8+420+20');
  await session.focus!(ctx, { window: a.id });
  await until(async () => ((await focused()) === a.title ? true : undefined), `${a.title} focused`, 10_000, 100);
  channel.calls.length = 0;
  await session.click!(ctx, { x: b.x + Math.floor(b.width / 2), y: b.y + Math.floor(b.height / 2), button: 'left', count: 1, modifiers: [] });
  await until(async () => ((await focused()) === b.title ? true : undefined), `${b.title} focused by the click`, 10_000, 100);
  await session.type!(ctx, { text: `typed ${tag}\n` });
  assert.equal(await fileText(fb2), `typed ${tag}`);
  return channel.calls.splice(0);
}

describe('x11: restored() — the session drives a restarted X server on the same display', { timeout: 180_000 }, () => {
  before(async () => {
    for (let attempt = 0; !display; attempt++) {
      const n = 90 + Math.floor(Math.random() * 110);
      if (attempt > 200) throw new Error('no free X display between :90 and :199');
      if (!displayInUse(n)) display = `:${n}`;
    }
    env = { DISPLAY: display, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8', HOME: home };
    await startX('1280x800', join(home, 'fb1'));
    channel = createHostChannel({ home, env: { HOME: home } });
    const lease = testLease({ channel, template: { adapter: 'x11', adapter_options: { display } }, framebuffer: async () => fb });
    session = await createX11Adapter({ display }).open(lease);
    ctx = callContext(lease, 170_000);
  });
  after(async () => {
    await session?.dispose();
    await stopX();
    rmSync(home, { recursive: true, force: true });
  });

  it('before: framebuffer screenshots and XTEST input on the first server', async () => {
    const shot = await session.screenshot!(ctx);
    assert.deepEqual([shot.width, shot.height], [1280, 800]);
    const calls = await drive('first');
    assert.ok(!calls.some((argv) => argv.join(' ').includes('xdotool')), `input through XTEST, not xdotool: ${JSON.stringify(calls)}`);
  });

  it('after the server is replaced and restored() is called: the new screen, click, type, through a new connection', async () => {
    await stopX();
    await startX('1024x768', join(home, 'fb2'));
    await session.restored!(ctx);
    channel.calls.length = 0;
    const shot = await session.screenshot!(ctx);
    assert.deepEqual([shot.width, shot.height], [1024, 768], 'the new server\'s size, read from its framebuffer');
    assert.deepEqual(channel.calls, [], 'the screenshot came from the new framebuffer file, not a guest xwd');
    assert.deepEqual(await session.screenSize!(ctx), { width: 1024, height: 768 });
    const calls = await drive('second');
    assert.ok(!calls.some((argv) => argv.join(' ').includes('xdotool')), `input through a new XTEST connection: ${JSON.stringify(calls)}`);
  });
});
