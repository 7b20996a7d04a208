/**
 * Readiness asked on the host over the shared X socket (docker-x11-ready.ts): the two checks
 * against real X servers here (Xvfb, with and without a cookie; openbox started and killed), then
 * ready() on real debian-x11 containers — with the socket shared the display and desktop stages
 * are answered on the host, and the guest agrees (wmctrl -m in the container); without it they
 * run in the guest as before.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { machineIdentity, type MachineRef } from '@vmhub/core';
import { freeDisplay, startXvfb } from '@vmhub/x11-client/xvfb';
import { until } from '@vmhub/test-kit';
import { hostProbeFor } from '../src/docker-x11-ready.ts';
import { ensureGolden, makeProvider, removeContainers, template } from './fixture.ts';

const probe = (argv: string[], socket: string) => hostProbeFor(argv, socket)!;

describe('docker: readiness asked on the host over the X socket', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-x11ready-'));
  const procs: ChildProcess[] = [];
  const xvfb = async (options: { cookie?: boolean; display?: number } = {}) => {
    const x = await startXvfb({ dir, ...options });
    procs.push(x.proc);
    return x;
  };
  after(() => {
    for (const p of procs) p.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('the display answers once the server sets a client up; before, the check says why, and the wait ends when the socket appears', async () => {
    const num = freeDisplay();
    const display = probe(['xdpyinfo', '-display', `:${num}`], `/tmp/.X11-unix/X${num}`);
    try {
      assert.match(String(await display.check()), /ENOENT/);
      // Waiting up to a minute: the socket directory's change ends the wait, not the timer.
      const started = Date.now();
      const woke = display.changed(60_000);
      await xvfb({ display: num });
      await woke;
      assert.ok(Date.now() - started < 30_000, 'woken by the socket, not by the 60 s timer');
      assert.equal(await until(async () => ((await display.check()) === true ? true : undefined), 'the display to answer', 10_000, 50), true);
    } finally {
      display.close();
    }
  });

  it('the window manager runs when the root names a window carrying _NET_SUPPORTING_WM_CHECK — not before openbox starts (the wait ends when it announces itself), not after it is killed', async () => {
    const x = await xvfb();
    const wm = probe(['wmctrl', '-m'], x.socket);
    try {
      assert.match(String(await wm.check()), /window manager has not started|no EWMH window manager/);
      const started = Date.now();
      const openbox = spawn('openbox', [], { stdio: 'ignore', env: { ...process.env, DISPLAY: `:${x.display}` } });
      procs.push(openbox);
      // Each wait may end on any root property change; no 60 s timer runs out on the way.
      while ((await wm.check()) !== true) {
        assert.ok(Date.now() - started < 30_000, 'openbox announced itself within 30 s');
        await wm.changed(60_000);
      }
      assert.ok(Date.now() - started < 30_000, 'woken by the root window\'s property change, not by the 60 s timer');
      openbox.kill('SIGKILL');
      // openbox's check window dies with it; the root's property still names it.
      const gone = await until(async () => { const r = await wm.check(); return r === true ? undefined : r; }, 'the window manager to be seen gone', 10_000, 50);
      assert.match(String(gone), /is not running/);
    } finally {
      wm.close();
    }
  });

  it('a server that wants a cookie is "unusable" here (the caller asks in the guest), not polled until the timeout', async () => {
    const x = await xvfb({ cookie: true });
    for (const argv of [['xdpyinfo'], ['wmctrl', '-m']]) {
      const p = probe(argv, x.socket);
      const r = await p.check();
      p.close();
      assert.equal(typeof r, 'object', String(r));
      assert.match((r as { unusable: string }).unusable, /refused the connection/);
    }
  });

  it('only xdpyinfo and wmctrl -m have a host equivalent', () => {
    for (const argv of [['xdpyinfo'], ['xdpyinfo', '-display', ':0'], ['wmctrl', '-m']]) {
      const p = hostProbeFor(argv, join(dir, 'X0'));
      assert.ok(p, argv.join(' '));
      p.close();
    }
    for (const argv of [['wmctrl', '-l'], ['xdpyinfo', '-queryExtensions'], ['swaymsg', '-t', 'get_version'], []]) assert.equal(hostProbeFor(argv, join(dir, 'X0')), undefined, argv.join(' '));
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
