/**
 * ARD (security type 30) through the stand-in (@vmhub/ard-standin, a private workspace package),
 * relaying to x11vnc over a live Xvfb: in-process, and its built dist/ard-standin.js run as its own process (with Node 18 when VMHUB_NODE18 names
 * one — Debian bookworm's nodejs, what the macos-standin golden runs — else this Node).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { connectRfb } from '../src/index.ts';
import { startArdStandin } from '@vmhub/ard-standin';
import { freePort, until } from '@vmhub/test-kit';
import { dial, have, readText, stopAll, x11vnc, xtermCat, xvfb } from './live.ts';

const missing = have('Xvfb', 'x11vnc', 'xterm', 'xdotool', 'xdpyinfo');
const built = fileURLToPath(import.meta.resolve('@vmhub/ard-standin'));

describe('rfb: ARD through the stand-in', { skip: missing }, () => {
  let display = '';
  let open = 0;
  let locked = 0;
  before(async () => {
    display = await xvfb('640x480');
    open = await x11vnc(display);
    locked = await x11vnc(display, ['-passwd', 'upstream1']);
  });
  after(stopAll);

  test('rfb: stand-in greets 003.889, offers only type 30; the client authenticates with ARD and the session is relayed (text typed arrives)', async () => {
    const port = await freePort();
    const server = await startArdStandin({ listen: { host: '127.0.0.1', port }, upstream: { host: '127.0.0.1', port: open }, username: 'lume', password: 'pässwörd with spaces' });
    try {
      const greeting = await new Promise<string>((ok) => { void dial(port).then((s) => s.once('data', (d) => { ok(d.toString('latin1')); s.destroy(); })); });
      assert.equal(greeting, 'RFB 003.889\n');
      const file = `/tmp/vmhub-rfb-ard-${process.pid}.txt`;
      await xtermCat(display, file);
      const rfb = await connectRfb(await dial(port), { username: 'lume', password: 'pässwörd with spaces' });
      assert.deepEqual([rfb.protocol, rfb.security, rfb.width, rfb.height], ['3.889', 'ard', 640, 480]);
      await rfb.click(30, 30);
      await rfb.typeText('typed over ARD\n');
      await until(() => readText(file) === 'typed over ARD\n', 'the text typed over ARD', 15_000);
      const shot = await rfb.screenshot({ fresh: true });
      assert.equal(shot.fresh, true);
      await rfb.close();
    } finally {
      server.close();
    }
  });

  test('rfb: wrong ARD username or password → AUTH_FAILED with the reason; no credentials → AUTH_FAILED naming ARD', async () => {
    const port = await freePort();
    const server = await startArdStandin({ listen: { host: '127.0.0.1', port }, upstream: { host: '127.0.0.1', port: open }, username: 'lume', password: 'right' });
    try {
      for (const [username, password] of [['lume', 'wrong'], ['other', 'right'], ['lume', 'righ'], ['lume', 'right!']]) {
        await assert.rejects(connectRfb(await dial(port), { username, password }), (err: Error & { code: string }) => err.code === 'AUTH_FAILED' && /Authentication failed/.test(err.message), `${username}/${password}`);
      }
      await assert.rejects(connectRfb(await dial(port), { password: 'right' }), (err: Error & { code: string }) => err.code === 'AUTH_FAILED' && /type 30/.test(err.message));
    } finally {
      server.close();
    }
  });

  test('rfb: the built dist/ard-standin.js imports only node: builtins and runs alone, relaying to a password-protected upstream', { skip: existsSync(built) ? undefined : 'build @vmhub/ard-standin first' }, async () => {
    const source = readFileSync(built, 'utf8');
    const imports = [...source.matchAll(/^\s*import\s[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]);
    assert.ok(imports.length > 0 && imports.every((s) => s.startsWith('node:')), `imports: ${imports.join(', ')}`);
    assert.ok(!/\bimport\(/.test(source), 'no dynamic imports');
    // Alone in a directory with no package.json, as a guest would hold it.
    const dir = mkdtempSync(join(tmpdir(), 'vmhub-ard-standin-'));
    const script = join(dir, 'ard-standin.mjs');
    copyFileSync(built, script);
    const port = await freePort();
    const node = process.env.VMHUB_NODE18 ?? process.execPath;
    const child = spawn(node, [script, '--listen', `127.0.0.1:${port}`, '--upstream', `127.0.0.1:${locked}`, '--username', 'admin', '--password', 'mac-pw', '--upstream-password', 'upstream1'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr.on('data', (c: Buffer) => { log += c.toString(); });
    try {
      await until(() => log.includes('ard-standin: RFB 003.889 / ARD on'), 'the stand-in to listen', 15_000);
      if (process.env.VMHUB_NODE18) {
        const { execFileSync } = await import('node:child_process');
        assert.match(execFileSync(node, ['--version'], { encoding: 'utf8' }), /^v18\./);
      }
      const rfb = await connectRfb(await dial(port), { username: 'admin', password: 'mac-pw' });
      assert.equal(rfb.security, 'ard');
      const shot = await rfb.screenshot();
      assert.deepEqual([shot.width, shot.height], [640, 480]);
      await rfb.close();
      await assert.rejects(connectRfb(await dial(port), { username: 'admin', password: 'nope' }), { code: 'AUTH_FAILED' });
      await until(() => log.includes('authentication failed'), 'the failure in the log', 15_000);
    } finally {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('rfb: a stand-in whose upstream refuses it tells the client why', async () => {
    const port = await freePort();
    const server = await startArdStandin({ listen: { host: '127.0.0.1', port }, upstream: { host: '127.0.0.1', port: locked }, username: 'u', password: 'p', upstreamPassword: 'not-it' });
    try {
      await assert.rejects(connectRfb(await dial(port), { username: 'u', password: 'p' }), (err: Error) => /upstream VNC server failed: upstream rejected the VNC password/.test(err.message));
    } finally {
      server.close();
    }
  });
});
