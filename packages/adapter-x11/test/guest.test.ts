/**
 * x11: files, exec, clone, probe, inspect and dispatch through the host channel (with and without
 * the channel's archive API). Guest paths reach the session resolved by core (guestPath here is
 * core's resolveGuestPath, as the router applies it); what core refuses goes through its router.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { VmhubError } from '@vmhub/core';
import { createHostChannel } from '@vmhub/test-kit/host-channel';
import { until } from '@vmhub/test-kit';
import { ATSPI_REASON, createX11Adapter } from '../src/index.ts';
import { guestPath, openLease } from './context.ts';
import { startDesktop, type Desktop } from './desktop.ts';
import { routerOn } from './router.ts';

let d: Desktop;
before(async () => { d = await startDesktop(); });
after(async () => { await d?.stop(); });

const rand = () => randomBytes(4).toString('hex');
async function code(p: Promise<unknown>): Promise<string> {
  try { await p; } catch (err) { assert.ok(VmhubError.is(err), String(err)); return `${err.code}: ${err.message}`; }
  return 'resolved';
}

describe('x11: put_file, get_file', () => {
  it('round-trips a binary file byte-exact, relative to home', async () => {
    const data = randomBytes(300_000);
    await d.session.putFile!(d.ctx, { path: guestPath(d.channel, 'sub/dir/blob.bin'), data, mode: 0o600 });
    assert.ok(readFileSync(join(d.x.home, 'sub/dir/blob.bin')).equals(data));
    const back = await d.session.getFile!(d.ctx, { path: join(d.x.home, 'sub/dir/blob.bin'), max_bytes: 1_000_000 });
    assert.ok(back.equals(data));
  });

  it('missing file → NOT_FOUND; over max_bytes → INVALID_REQUEST; traversal refused', async () => {
    assert.match(await code(d.session.getFile!(d.ctx, { path: `/nonexistent-${rand()}/x`, max_bytes: 10 })), /^NOT_FOUND/);
    writeFileSync(join(d.x.home, 'big.txt'), 'x'.repeat(100));
    assert.match(await code(d.session.getFile!(d.ctx, { path: guestPath(d.channel, 'big.txt'), max_bytes: 10 })), /^INVALID_REQUEST/);
    // Traversal is refused by core before the session is called: through the router.
    const call = routerOn(d.adapter, d.session, d.ctx);
    assert.match(await code(call('vm_put_file', { path: '../escape.txt', content: 'x' })), /^INVALID_REQUEST: .*"\.\."/);
    assert.equal(existsSync(join(d.x.home, '../escape.txt')), false, 'nothing written outside the home');
  });
});

describe('x11: exec', () => {
  it('runs argv with cwd and stdin; exit code and stderr separate; nothing through a shell', async () => {
    const r = await d.session.exec!(d.ctx, { argv: ['sh', '-c', 'cat; echo "$PWD" >&2; exit 3'], cwd: guestPath(d.channel, '.', 'cwd'), stdin: 'in ✓', timeout_ms: 10_000, max_output_bytes: 4096 });
    assert.equal(r.exit_code, 3);
    assert.equal(r.stdout.toString(), 'in ✓');
    assert.equal(r.stderr.toString().trim(), d.x.home);
    const lit = await d.session.exec!(d.ctx, { argv: ['printf', '%s', '$(id)'], timeout_ms: 10_000, max_output_bytes: 4096 });
    assert.equal(lit.stdout.toString(), '$(id)');
  });

  it('timeout and output caps', async () => {
    const t = await d.session.exec!(d.ctx, { argv: ['sleep', '5'], timeout_ms: 300, max_output_bytes: 4096 });
    assert.equal(t.timed_out, true);
    const big = await d.session.exec!(d.ctx, { argv: ['head', '-c', '100000', '/dev/zero'], timeout_ms: 10_000, max_output_bytes: 1000 });
    assert.equal(big.stdout.length, 1000);
    assert.equal(big.truncated, true);
  });
});

describe('x11: clone_repo', () => {
  const makeTar = () => {
    const src = mkdtempSync(join(tmpdir(), 'vmhub-x11-repo-'));
    mkdirSync(join(src, '.git'));
    writeFileSync(join(src, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(src, 'README.md'), '# héllo\n');
    const tar = execFileSync('tar', ['-c', '-C', src, '.']);
    rmSync(src, { recursive: true, force: true });
    return tar;
  };

  it('unpacks the archive at dest with tar over exec when the channel has no archive API', async () => {
    assert.equal(d.channel.putArchive, undefined);
    await d.session.cloneRepo!(d.ctx, { dest: guestPath(d.channel, 'work/repo', 'dest'), archive: Readable.from([makeTar()]) });
    assert.equal(readFileSync(join(d.x.home, 'work/repo/README.md'), 'utf8'), '# héllo\n');
    assert.ok(existsSync(join(d.x.home, 'work/repo/.git/HEAD')));
  });

  it('uses the channel\'s putArchive when present', async () => {
    const home = mkdtempSync(join(tmpdir(), 'vmhub-x11-arch-'));
    try {
      const channel = createHostChannel({ home, withArchive: true });
      const { session, ctx } = await openLease(createX11Adapter({ display: d.x.display }), channel, { display: d.x.display });
      await session.cloneRepo!(ctx, { dest: join(home, 'r'), archive: Readable.from([makeTar()]) });
      assert.equal(readFileSync(join(home, 'r/README.md'), 'utf8'), '# héllo\n');
      assert.ok(!channel.calls.some((argv) => argv.includes('tar')), 'no tar exec when putArchive exists');
      await session.dispose();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

/** A PATH of symlinks to just these host tools: plays a golden image with exactly that content. */
function pathWith(tools: string[]): { path: string; dispose: () => void } {
  const bin = mkdtempSync(join(tmpdir(), 'vmhub-x11-bin-'));
  for (const tool of tools) {
    const path = execFileSync('sh', ['-c', 'command -v "$1"', 'sh', tool]).toString().trim();
    execFileSync('ln', ['-s', path, join(bin, tool)]);
  }
  return { path: bin, dispose: () => rmSync(bin, { recursive: true, force: true }) };
}

const GOLDEN_TOOLS = ['sh', 'sed', 'grep', 'cat', 'tr', 'mktemp', 'rm', 'sleep', 'timeout', 'gzip', 'tar', 'setsid', 'perl', 'xdotool', 'wmctrl', 'xclip', 'xwd', 'xprop', 'xwininfo'];

describe('x11: probe and inspect', () => {
  it('probe on a golden without AT-SPI (no python3): only inspect is unavailable, with the reason', async () => {
    const bin = pathWith(GOLDEN_TOOLS);
    try {
      const { session, ctx } = await openLease(createX11Adapter({ display: d.x.display }), createHostChannel({ home: d.x.home, env: { PATH: bin.path } }), { display: d.x.display });
      const unavailable = await session.probe!(ctx);
      assert.deepEqual(Object.keys(unavailable), ['inspect']);
      assert.equal(unavailable.inspect, ATSPI_REASON);
      const msg = await code(session.inspect!(ctx, { max_depth: 3, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 }));
      assert.match(msg, /^CAPABILITY_UNAVAILABLE: .*no AT-SPI stack \(at-spi2-core \+ python3-pyatspi\)/);
      await session.dispose();
    } finally {
      bin.dispose();
    }
  });

  it('a guest without the tools: probe names them; an action says to add them to the golden', async () => {
    const bin = pathWith(['sh', 'sed', 'grep', 'cat', 'tr', 'mktemp', 'rm', 'sleep']);
    try {
      const { session, ctx } = await openLease(createX11Adapter({ display: d.x.display }), createHostChannel({ home: d.x.home, env: { PATH: bin.path } }), { display: d.x.display });
      const unavailable = await session.probe!(ctx);
      assert.match(unavailable.click ?? '', /xdotool.* not found in the guest: add/);
      assert.match(unavailable.screenshot ?? '', /xwd/);
      assert.match(unavailable.paste ?? '', /xclip/);
      assert.match(await code(session.key!(ctx, { keys: 'Return' })), /^CAPABILITY_UNAVAILABLE: .*xdotool not found in the guest: add it to the golden image/);
      assert.match(await code(session.listWindows!(ctx)), /^CAPABILITY_UNAVAILABLE: .*xprop not found/);
      assert.match(await code(session.screenshot!(ctx)), /^CAPABILITY_UNAVAILABLE: .*(xwd|xwininfo) not found/);
      await session.dispose();
    } finally {
      bin.dispose();
    }
  });
});

describe('x11: dispatch', () => {
  it('declares its verbs; unknown verbs and bad args are INVALID_REQUEST', async () => {
    assert.deepEqual(d.adapter.verbs.map((v) => v.verb).sort(), ['get_clipboard', 'mouse_location', 'set_clipboard', 'window_geometry', 'xdotool_search']);
    assert.match(await code(d.session.dispatch!(d.ctx, { verb: 'rm_rf', args: {} })), /^INVALID_REQUEST: .*unknown verb/);
    assert.match(await code(d.session.dispatch!(d.ctx, { verb: 'set_clipboard', args: { text: 1 } })), /^INVALID_REQUEST/);
  });

  it('set_clipboard / get_clipboard round-trip Unicode; xdotool_search and window_geometry find a window', async () => {
    const text = `clip ✓ ${rand()} '$(x)'`;
    await d.session.dispatch!(d.ctx, { verb: 'set_clipboard', args: { text } });
    assert.deepEqual(await d.session.dispatch!(d.ctx, { verb: 'get_clipboard', args: {} }), { text, empty: false });
    const title = `verb-${rand()}`;
    d.x.spawnX(['xterm', '-T', title, '-geometry', '40x5+200+150', '-e', 'sleep', '60']);
    const w = await d.window(title);
    const found = await d.session.dispatch!(d.ctx, { verb: 'xdotool_search', args: { name: `^${title}$` } }) as { windows: string[] };
    assert.ok(found.windows.includes(w.id), JSON.stringify(found));
    assert.deepEqual(await d.session.dispatch!(d.ctx, { verb: 'xdotool_search', args: { name: '-nomatch-' + rand() } }), { windows: [] });
    const geo = await d.session.dispatch!(d.ctx, { verb: 'window_geometry', args: { window: title } });
    assert.deepEqual(geo, { id: w.id, x: w.x, y: w.y, width: w.width, height: w.height });
    await d.session.click!(d.ctx, { x: 33, y: 44, button: 'left', count: 1, modifiers: [] });
    const loc = await d.session.dispatch!(d.ctx, { verb: 'mouse_location', args: {} }) as { x: number; y: number };
    assert.deepEqual([loc.x, loc.y], [33, 44]);
  });
});

describe('x11: screenshot, raw vs gzip capture', () => {
  it('raw and gzip captures give the same frame', async () => {
    const gz = await d.open({ display: d.x.display, screenshot_gzip: false });
    await d.session.click!(d.ctx, { x: 1, y: 1, button: 'left', count: 1, modifiers: [] });
    const [a, b] = [await d.session.screenshot!(d.ctx), await gz.screenshot!(d.ctx)];
    assert.deepEqual([b.width, b.height, b.format], [a.width, a.height, a.format]);
    const differing = await until(async () => {
      const [x, y] = [await d.session.screenshot!(d.ctx), await gz.screenshot!(d.ctx)];
      return x.data.equals(y.data) ? true : undefined;
    }, 'stable frames', 5000, 200);
    assert.equal(differing, true);
  });
});
