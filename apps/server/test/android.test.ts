// Android through the built server and the SDK client, on the android-standin golden: a Docker
// container running the REAL adbd (bookworm-backports, AOSP 34) with Android-format tools over
// an Xvfb display and a Tk test app (standins/goldens/android-standin/README.md
// says what it is and is not). Effects are read from the app's own state inside the container;
// teardown is checked on the engine. Stand-in templates are listed only with
// VMHUB_STANDIN_TEMPLATES=1.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { until } from '@vmhub/test-kit';
import { BIN, connect, errorCode, leaseReady, machineBox, type Session } from './harness.ts';
import { assertStandinListedOnlyWithEnv } from './standin-checks.ts';

const run = promisify(execFile);
const docker = (...args: string[]) => run('docker', args).then((r) => r.stdout.trim());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const box = machineBox('android', 'and');
const { instance } = box;
const STATE = '/data/data/com.vmhub.standin/files/state.json';
// The stand-in app's layout at 1080x2400 (standin/app.py): text field and button, screen pixels.
const FIELD = { x: 540, y: 470 };
const BUTTON = { x: 540, y: 820, region: { x: 60, y: 700, width: 960, height: 240 } };

let s: Session;
let lease = '';

async function appState(): Promise<any> {
  const r = await s.call('vm_exec', { lease_id: lease, command: ['cat', STATE] });
  assert.equal(r.structuredContent?.exit_code, 0, JSON.stringify(r.structuredContent));
  return JSON.parse(r.structuredContent.stdout);
}

/** RGBA pixels of a PNG. */
const rgba = async (png: Buffer) => (await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true }));
const imageOf = (r: any) => Buffer.from(r.content.find((c: any) => c.type === 'image').data, 'base64');
/** The rows where two same-size RGBA images differ: [first, last], or undefined when they are equal. */
function differingRows(a: Buffer, b: Buffer, width: number): [number, number] | undefined {
  let first = -1, last = -1;
  for (let y = 0; y * width * 4 < a.length; y++) if (a.compare(b, y * width * 4, (y + 1) * width * 4, y * width * 4, (y + 1) * width * 4) !== 0) { if (first < 0) first = y; last = y; }
  return first < 0 ? undefined : [first, last];
}
/** Compression level in a PNG's zlib stream header (FLEVEL of the first IDAT): 0 fastest … 3 best. */
const zlibLevel = (png: Buffer) => png[png.indexOf('IDAT', 8, 'latin1') + 5]! >> 6;

const imageHash = (r: any) => createHash('sha256').update(r.content.find((c: any) => c.type === 'image').data).digest('hex');

before(async () => {
  box.write();
  // The golden is content-addressed: built once (minutes, .debs cached), then reused.
  await run(process.execPath, [BIN, 'golden', 'build', 'android-standin'], { env: { ...process.env, VMHUB_CONFIG: box.configFile }, maxBuffer: 64 * 1024 * 1024 });
  s = await connect(box, { VMHUB_STANDIN_TEMPLATES: '1' });
});

after(() => box.end(s, [lease]));

describe('android: an agent drives the Android stand-in over real adb', { timeout: 300_000 }, () => {
  it('the stand-in template is listed only with VMHUB_STANDIN_TEMPLATES=1', async () => {
    await assertStandinListedOnlyWithEnv(box, s, 'android-standin', 'android');
  });

  it('lease → ready → a 1080x2400 screenshot', async () => {
    await leaseReady(s, { template: 'android-standin', ttl_seconds: 600 }, 120, (id) => { lease = id; });
    const shot = await s.call('vm_screenshot', { lease_id: lease });
    assert.equal(shot.isError, undefined, JSON.stringify(shot.structuredContent));
    assert.deepEqual(shot.structuredContent.screen, { width: 1080, height: 2400 });
    assert.equal((await appState()).taps, 0);
  });

  it('a whole-screen screenshot shows the device\'s own capture: passed through as is when it fits, decoded and re-encoded for a region', async () => {
    const name = `vmhub-${instance}-${lease}`;
    const full = { lease_id: lease, max_width: 1080, max_height: 2400 };
    const through = await s.call('vm_screenshot', full);
    const shaped = await s.call('vm_screenshot', { ...full, region: { x: 0, y: 0, width: 1080, height: 2400 } });
    const device = (await run('docker', ['exec', name, 'screencap', '-p'], { encoding: 'buffer', maxBuffer: 64 << 20 })).stdout;
    for (const r of [through, shaped]) {
      assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
      assert.deepEqual([r.structuredContent.width, r.structuredContent.height, r.structuredContent.scale, r.structuredContent.format, r.structuredContent.origin], [1080, 2400, 1, 'png', { x: 0, y: 0 }]);
      assert.equal(r.structuredContent.bytes, imageOf(r).length);
    }
    // The stand-in's screencap deflates at level 1 (FLEVEL 0), core's encoder at 6 (FLEVEL 2).
    assert.equal(zlibLevel(imageOf(through)), zlibLevel(device), 'passed through: the device\'s own encoding');
    assert.notEqual(zlibLevel(imageOf(shaped)), zlibLevel(device), 'a region is decoded and re-encoded by core');
    const want = await rgba(device);
    assert.deepEqual([want.info.width, want.info.height], [1080, 2400]);
    for (const [label, r] of [['passed through', through], ['re-encoded', shaped]] as const) {
      const got = await rgba(imageOf(r));
      // Only the text field's blinking cursor may differ between the captures.
      const rows = differingRows(got.data, want.data, 1080);
      assert.ok(!rows || (rows[0] >= FIELD.y - 120 && rows[1] <= FIELD.y + 120), `${label}: pixels differ from the device's capture in rows ${rows}`);
    }
  });

  it('a tap on the button changes the next screenshot and the app counts it', async () => {
    const before = await s.call('vm_screenshot', { lease_id: lease, region: BUTTON.region, format: 'png' });
    const click = await s.call('vm_click', { lease_id: lease, x: BUTTON.x, y: BUTTON.y, coordinate_space: 'screen' });
    assert.equal(click.isError, undefined, JSON.stringify(click.structuredContent));
    const state = await until(async () => { const v = await appState(); return v.taps === 1 && v; }, 'the app to count one tap', 8000, 200);
    assert.equal(state.taps, 1);
    assert.equal(state.button_text, 'Tapped 1');
    const afterShot = await s.call('vm_screenshot', { lease_id: lease, region: BUTTON.region, format: 'png' });
    assert.notEqual(imageHash(afterShot), imageHash(before), 'the button looks different after the tap');
  });

  it('typed Unicode with shell metacharacters reaches the text field byte-exact', async () => {
    const text = 'héllo wörld 你好 $HOME `x` 100% "q" \'s\' ;|&';
    await s.call('vm_click', { lease_id: lease, x: FIELD.x, y: FIELD.y, coordinate_space: 'screen' });
    const typed = await s.call('vm_type', { lease_id: lease, text });
    assert.equal(typed.isError, undefined, JSON.stringify(typed.structuredContent));
    const state = await until(async () => { const v = await appState(); return v.text === text && v; }, 'the typed text in the app\'s field', 8000, 200);
    assert.equal(state.text, text);
    assert.equal(state.focus, 'input');
  });

  it('the UI tree (retried through injected null-root failures), windows, close and launch', async () => {
    const find = (n: any, want: (x: any) => boolean): any => (want(n) ? n : (n.children ?? []).map((c: any) => find(c, want)).find(Boolean));
    await s.call('vm_exec', { lease_id: lease, command: ['sh', '-c', 'echo 2 > /data/vmhub-standin/faults/uiautomator-null-root'] });
    const tree = await s.call('vm_inspect', { lease_id: lease, max_depth: 10 });
    assert.equal(tree.isError, undefined, JSON.stringify(tree.structuredContent));
    const button = find(tree.structuredContent.tree, (x) => x.role === 'Button');
    assert.equal(button?.name, 'Tapped 1', JSON.stringify(tree.structuredContent.tree).slice(0, 500));
    assert.deepEqual([button.x, button.y, button.width, button.height], [60, 700, 960, 240]);
    const fault = await s.call('vm_exec', { lease_id: lease, command: ['ls', '/data/vmhub-standin/faults'] });
    assert.equal(fault.structuredContent.stdout, '', 'both injected failures were used up by retries');

    const title = 'com.vmhub.standin/com.vmhub.standin.MainActivity';
    const wins = (await s.call('vm_list_windows', { lease_id: lease })).structuredContent.windows;
    assert.ok(wins.some((w: any) => w.title === title && w.focused), JSON.stringify(wins));
    const closed = await s.call('vm_close', { lease_id: lease, window: title });
    assert.equal(closed.isError, undefined, JSON.stringify(closed.structuredContent));
    const after = (await s.call('vm_list_windows', { lease_id: lease })).structuredContent.windows;
    assert.ok(!after.some((w: any) => w.title === title), 'the app is gone after close');
    const launched = await s.call('vm_launch', { lease_id: lease, app: 'com.vmhub.standin', wait_seconds: 10 });
    assert.equal(launched.isError, undefined, JSON.stringify(launched.structuredContent));
    assert.equal(launched.structuredContent.window?.title, title);
    assert.equal((await appState()).taps, 0, 'a fresh process of the app');
  });

  it('text the device cannot take (no clipboard helper for non-ASCII) is a typed error, nothing typed', async () => {
    const before = (await appState()).text;
    const un = await s.call('vm_exec', { lease_id: lease, command: ['pm', 'uninstall', 'ca.zgrs.clipper'] });
    assert.equal(un.structuredContent.stdout.trim(), 'Success');
    const r = await s.call('vm_type', { lease_id: lease, text: 'ü' });
    assert.equal(errorCode(r), 'CAPABILITY_UNAVAILABLE', JSON.stringify(r.structuredContent));
    assert.equal((await appState()).text, before, 'nothing reached the field');
  });

  it('push and pull a binary file byte-exact; exec exit code and separate stderr', async () => {
    const data = randomBytes(256 * 1024);
    const path = '/data/local/tmp/vmhub-blob.bin';
    const put = await s.call('vm_put_file', { lease_id: lease, path, content_base64: data.toString('base64') });
    assert.equal(put.isError, undefined, JSON.stringify(put.structuredContent));
    const got = await s.call('vm_get_file', { lease_id: lease, path });
    assert.equal(got.isError, undefined, JSON.stringify(got.structuredContent));
    assert.ok(Buffer.from(got.structuredContent.content_base64, 'base64').equals(data), 'pulled bytes equal pushed bytes');
    const sum = await s.call('vm_exec', { lease_id: lease, command: ['sha256sum', path] });
    assert.equal(sum.structuredContent.stdout.split(' ')[0], createHash('sha256').update(data).digest('hex'), 'the bytes on the device are the pushed ones');

    const r = await s.call('vm_exec', { lease_id: lease, command: ['sh', '-c', 'echo out; echo err >&2; exit 3'] });
    assert.equal(r.structuredContent.exit_code, 3);
    assert.equal(r.structuredContent.stdout, 'out\n');
    assert.equal(r.structuredContent.stderr, 'err\n');
    // shell runs in the device's /system/bin/sh ($0 names the shell that ran it).
    const sh = await s.call('vm_exec', { lease_id: lease, shell: 'echo "$0"; exit 4' });
    assert.deepEqual([sh.structuredContent.exit_code, sh.structuredContent.stdout], [4, '/system/bin/sh\n'], JSON.stringify(sh.structuredContent));
  });

  // docs/security.md "Guest port forwards": the device's adbd is reached through a unix-socket
  // forward and vmhub's private adb server, both in 0700 directories; nobody is a local user.
  it('another local user (nobody) cannot reach the device: no TCP listener in the server, its forward and adb server refuse nobody', { skip: process.getuid?.() !== 0 && 'needs root for setpriv' }, async (t) => {
    const mine = (out: string) => out.split('\n').filter((l) => l.includes(`pid=${s.pid},`));
    assert.deepEqual(mine((await run('ss', ['-ltnpH'])).stdout), [], 'the server listens on no TCP port');
    const sockets = mine((await run('ss', ['-lxpH'])).stdout).map((l) => l.trim().split(/\s+/)[4]);
    const forward = sockets.find((p) => /\/vmhub-ports-[^/]+\/5555\.sock$/.test(p));
    assert.ok(forward, `the lease's adb forward is a unix socket of the server: ${sockets.join(', ')}`);
    const adbServer = join('/tmp', `vmhub-adb-${process.getuid!()}`, 'adb.sock');
    const home = mkdtempSync(join(tmpdir(), 'vmhub-android-nobody-'));
    chownSync(home, 65534, 65534);
    const nobody = (...argv: string[]) => run('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', ...argv], { env: { PATH: process.env.PATH, HOME: home }, timeout: 30_000 })
      .then((r) => `${r.stdout}${r.stderr}`, (e: { stdout?: string; stderr?: string; code?: unknown }) => `exit ${String(e.code)}: ${e.stdout ?? ''}${e.stderr ?? ''}`);
    const own = ['adb', '-L', `localfilesystem:${join(home, 'adb.sock')}`];
    try {
      const direct = await nobody(process.execPath, '-e', `require('node:net').connect(${JSON.stringify(forward)}).on('connect', () => { console.log('connected'); process.exit(0); }).on('error', (e) => console.log(e.code))`);
      const attach = await nobody(...own, 'connect', `localfilesystem:${forward}`);
      const viaOwn = await nobody(...own, '-s', `localfilesystem:${forward}`, 'shell', 'id');
      const viaVmhub = await nobody('adb', '-L', `localfilesystem:${adbServer}`, 'shell', 'id');
      t.diagnostic(`nobody: connect → ${direct.trim()}; own adb server connect → ${attach.trim().split('\n')[0]}; shell → ${viaOwn.trim().split('\n')[0]}; vmhub's adb server → ${viaVmhub.trim().split('\n').at(-1)}`);
      assert.equal(direct.trim(), 'EACCES');
      assert.match(attach, /could not connect|failed to connect|Permission denied/i);
      assert.doesNotMatch(viaOwn, /uid=/, 'no shell through nobody\'s own adb server');
      assert.doesNotMatch(viaVmhub, /uid=/, 'no shell through vmhub\'s adb server');
    } finally {
      await nobody(...own, 'kill-server');
      rmSync(home, { recursive: true, force: true });
      rmSync('/tmp/adb.65534.log', { force: true }); // the log of nobody's adb servers
    }
    const still = await s.call('vm_exec', { lease_id: lease, command: ['id', '-u'] });
    assert.equal(still.structuredContent?.exit_code, 0, 'the agent still reaches the device');
  });

  it('bad input is a typed error: an unknown key name', async () => {
    const r = await s.call('vm_key', { lease_id: lease, keys: 'NoSuchKeyName' });
    assert.equal(errorCode(r), 'INVALID_REQUEST', JSON.stringify(r.structuredContent));
    assert.match(r.structuredContent.message, /NoSuchKeyName/);
  });

  it('adbd going away mid-call is a typed error, not a hang', async (t) => {
    const name = `vmhub-${instance}-${lease}`;
    const call = s.call('vm_exec', { lease_id: lease, command: ['sleep', '20'], timeout_seconds: 60 });
    await sleep(1000);
    await docker('exec', name, 'sh', '-c', 'kill -9 $(pidof adbd)');
    const r = await call;
    assert.ok(r.isError, `the cut call answered ${JSON.stringify(r.structuredContent)}`);
    assert.ok(typeof errorCode(r) === 'string', 'typed error code');
    const next = await s.call('vm_screenshot', { lease_id: lease });
    assert.ok(next.isError, 'without adbd the device answers nothing');
    assert.ok(errorCode(next), JSON.stringify(next.structuredContent));
    t.diagnostic(`cut call: ${errorCode(r)} (${r.structuredContent.message}); next: ${errorCode(next)} (${next.structuredContent.message})`);
    assert.match(r.structuredContent.message, /went away/, 'the error says the device went away');
  });

  it('the container stopped behind vmhub\'s back: MACHINE_LOST', async () => {
    await docker('stop', '-t', '2', `vmhub-${instance}-${lease}`);
    const r = await s.call('vm_screenshot', { lease_id: lease });
    assert.equal(errorCode(r), 'MACHINE_LOST', JSON.stringify(r.structuredContent));
  });

  it('release (or the machine-lost teardown) removes the container from the engine', async () => {
    const name = `vmhub-${instance}-${lease}`;
    const r = await s.call('vm_lease_release', { lease_id: lease });
    assert.ok(['released', 'failed'].includes(r.structuredContent.status), JSON.stringify(r.structuredContent));
    let gone = false;
    for (let i = 0; i < 50 && !gone; i++) {
      gone = await docker('inspect', name).then(() => false, () => true);
      if (!gone) await sleep(200);
    }
    assert.ok(gone, 'the container is gone from the engine');
    lease = '';
  });
});
