/**
 * Readiness asked on the host over the shared X socket (docker-x11-ready.ts): the two checks
 * against real X servers here (Xvfb, with and without a cookie; openbox started and killed), then
 * ready() on real debian-x11 containers — with the socket shared the display and desktop stages
 * are answered on the host, and the guest agrees (wmctrl -m in the container); without it they
 * run in the guest as before.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { machineIdentity, type MachineRef } from '@vmhub/core';
import { hostCheckFor } from '../src/docker-x11-ready.ts';
import { ensureGolden, makeProvider, removeContainers, template } from './fixture.ts';

const display = hostCheckFor(['xdpyinfo', '-display', ':0'])!;
const wm = hostCheckFor(['wmctrl', '-m'])!;

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** An Xvfb on a free display number; `cookie` makes it demand MIT-MAGIC-COOKIE-1. */
async function xvfb(dir: string, cookie = false): Promise<{ num: number; socket: string; proc: ChildProcess }> {
  for (let num = 140 + Math.floor(Math.random() * 100); ; num++) {
    const socket = `/tmp/.X11-unix/X${num}`;
    if (existsSync(socket) || existsSync(`/tmp/.X${num}-lock`)) continue;
    const args = [`:${num}`, '-nolisten', 'tcp', '-noreset', '-screen', '0', '640x480x24']; // -noreset as the golden's: atoms outlive the last client
    if (cookie) {
      // An Xauthority entry: FamilyWild, no address, the display number, MIT-MAGIC-COOKIE-1, 16 bytes.
      const field = (b: Buffer) => Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
      const auth = join(dir, `auth-${num}`);
      writeFileSync(auth, Buffer.concat([Buffer.from([0xff, 0xff]), field(Buffer.alloc(0)), field(Buffer.from(String(num))), field(Buffer.from('MIT-MAGIC-COOKIE-1')), field(randomBytes(16))]));
      args.push('-auth', auth);
    } else {
      args.push('-ac');
    }
    const proc = spawn('Xvfb', args, { stdio: 'ignore' });
    await until(`Xvfb :${num}`, async () => (existsSync(socket) ? true : undefined));
    return { num, socket, proc };
  }
}

describe('docker: readiness asked on the host over the X socket', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-x11ready-'));
  const procs: ChildProcess[] = [];
  after(() => {
    for (const p of procs) p.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('the display answers once the server sets a client up; no socket is "not yet", with the reason', async () => {
    assert.match(String(await display(join(dir, 'X0'))), /ENOENT/);
    const x = await xvfb(dir);
    procs.push(x.proc);
    assert.equal(await display(x.socket), true);
  });

  it('the window manager runs when the root names a window carrying _NET_SUPPORTING_WM_CHECK — not before openbox starts, not after it is killed', async () => {
    const x = await xvfb(dir);
    procs.push(x.proc);
    assert.match(String(await wm(x.socket)), /window manager has not started|no EWMH window manager/);
    const openbox = spawn('openbox', [], { stdio: 'ignore', env: { ...process.env, DISPLAY: `:${x.num}` } });
    procs.push(openbox);
    assert.equal(await until('openbox', async () => ((await wm(x.socket)) === true ? true : undefined)), true);
    openbox.kill('SIGKILL');
    // openbox's check window dies with it; the root's property still names it.
    const gone = await until('the window manager to be seen gone', async () => { const r = await wm(x.socket); return r === true ? undefined : r; });
    assert.match(String(gone), /is not running/);
  });

  it('a server that wants a cookie is "unusable" here (the caller asks in the guest), not polled until the timeout', async () => {
    const x = await xvfb(dir, true);
    procs.push(x.proc);
    const r = await display(x.socket);
    assert.equal(typeof r, 'object', String(r));
    assert.match((r as { unusable: string }).unusable, /refused a client without a cookie/);
  });

  it('only xdpyinfo and wmctrl -m have a host equivalent', () => {
    assert.equal(hostCheckFor(['xdpyinfo']), display);
    assert.equal(hostCheckFor(['wmctrl', '-m']), wm);
    for (const argv of [['wmctrl', '-l'], ['xdpyinfo', '-queryExtensions'], ['swaymsg', '-t', 'get_version'], []]) assert.equal(hostCheckFor(argv), undefined, argv.join(' '));
  });
});

describe('docker: ready() on debian-x11 with and without the shared X socket', { timeout: 180_000 }, () => {
  const made: MachineRef[] = [];
  before(() => ensureGolden());
  after(() => removeContainers(...made.map((m) => m.external_id)));

  for (const framebuffer of [true, false]) {
    it(framebuffer ? 'shared: display and desktop answered on the host, and the guest agrees (wmctrl -m)' : 'not shared (framebuffer: false): both stages run in the guest', async () => {
      const { provider, context } = makeProvider({ framebuffer });
      const lease = randomUUID();
      const m = await provider.create({ lease_id: lease, identity: machineIdentity(context.instance, lease), template, signal: AbortSignal.timeout(60_000) });
      made.push(m);
      const seen: string[] = [];
      await provider.ready(m, { signal: AbortSignal.timeout(60_000), template, stage: (name, status, detail) => { if (status === 'done') seen.push(`${name}:${detail ?? ''}`); } });
      const host = ' answered on the host over the shared X socket';
      assert.deepEqual(seen, framebuffer
        ? ['container:', `display:xdpyinfo -display :0${host}`, `desktop:wmctrl -m${host}`]
        : ['container:', 'display:', 'desktop:']);
      const ch = await provider.channel!(m, template);
      try {
        const r = await ch.exec(['wmctrl', '-m'], { env: { DISPLAY: ':0' } });
        assert.equal(r.exit_code, 0, 'the window manager the host saw runs in the guest');
        assert.match(r.stdout.toString('utf8'), /Name: Openbox/);
      } finally {
        await ch.close();
      }
      assert.equal(await provider.destroy(m), 'destroyed');
      await provider.close?.();
    });
  }
});
