// Wayland through the built server and the SDK client: the wayland-sway golden (sway 1.7 headless
// in a real Docker container) driven by @vmhub/adapter-hyprland, and the hyprland-standin golden
// (the same sway, plus a Hyprland IPC socket answered by a stand-in) for both Hyprland dispatch
// syntaxes. Effects are checked in the guest: files written by programs in the session, and
// sway's own tree (swaymsg -t get_tree) for focus and windows; teardown on the engine itself.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { goldenImageTag } from '@vmhub/provider-docker';
import { connect, errorCode, waitReady, type Session } from './harness.ts';

const run = promisify(execFile);
const docker = (...args: string[]) => run('docker', args).then((r) => r.stdout.trim());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dir = mkdtempSync(join(tmpdir(), 'vmhub-wayland-'));
const plain = { instance: `wl${randomBytes(3).toString('hex')}`, db: join(dir, 'plain.db') };
const standins = { instance: `wh${randomBytes(3).toString('hex')}`, db: join(dir, 'standin.db') };

// Variants of the two goldens' templates, set through config: the same images with another
// container env (the session reads VMHUB_OUTPUT_SCALE; the stand-in hook VMHUB_HYPRLAND_VERSION).
const scale2 = {
  id: 'wayland-sway-scale2', provider: 'docker', adapter: 'hyprland', os: 'linux', golden: goldenImageTag('wayland-sway'),
  description: 'wayland-sway with its output at scale 2', ready_timeout_seconds: 60,
  adapter_options: { compositor: 'sway' }, provider_options: { env: { VMHUB_OUTPUT_SCALE: '2' } },
};
const lua = {
  id: 'hyprland-standin-lua', provider: 'docker', adapter: 'hyprland', os: 'linux', golden: goldenImageTag('hyprland-standin'), standin: true,
  description: 'Stand-in for Hyprland 0.55.4 (Lua dispatchers)', ready_timeout_seconds: 60,
  adapter_options: { compositor: 'hyprland' }, provider_options: { env: { VMHUB_HYPRLAND_VERSION: '0.55.4' } },
};

let a: Session; // standin_templates off
let b: Session; // VMHUB_STANDIN_TEMPLATES=1
const leases: Record<string, { session: () => Session; id: string; instance: string }> = {};

function config(name: string, box: { instance: string; db: string }, templates: unknown[]): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ ...box, templates, reaper: { autostart: false } }));
  return file;
}

async function create(key: string, s: () => Session, instance: string, template: string): Promise<void> {
  const r = await s().call('vm_lease_create', { template, ttl_seconds: 600 });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  leases[key] = { session: s, id: r.structuredContent.lease_id, instance };
}

/** A lease of `key`, ready (waited for once). */
const readyOnce = new Map<string, Promise<any>>();
function ready(key: string): Promise<any> {
  const l = leases[key]!;
  if (!readyOnce.has(key)) readyOnce.set(key, waitReady(l.session(), l.id, 90));
  return readyOnce.get(key)!;
}

/** Calls on one lease. */
function on(key: string) {
  const l = leases[key]!;
  const call = (tool: string, args: Record<string, unknown> = {}) => l.session().call(tool, { lease_id: l.id, ...args });
  const ok = async (tool: string, args: Record<string, unknown> = {}) => {
    const r = await call(tool, args);
    assert.equal(r.isError, undefined, `${tool}: ${JSON.stringify(r.structuredContent)}`);
    return r.structuredContent;
  };
  const sh = async (script: string) => (await ok('vm_exec', { command: ['sh', '-c', script] })).stdout as string;
  /** sway's own view, from the guest: every window with its logical rect and focus. */
  const tree = async () => {
    const nodes: any[] = [];
    const walk = (n: any) => { if (n.pid) nodes.push(n); for (const c of [...(n.nodes ?? []), ...(n.floating_nodes ?? [])]) walk(c); };
    walk(JSON.parse(await sh('swaymsg -r -t get_tree')));
    return nodes;
  };
  const readGuest = async (path: string, ms = 8000) => {
    for (const until = Date.now() + ms; Date.now() < until; await sleep(200)) {
      const r = await call('vm_get_file', { path });
      if (!r.isError && r.structuredContent.content) return r.structuredContent.content as string;
    }
    return '';
  };
  /** A foot terminal whose shell reads one line into `file` and exits: what vm_type delivers lands there. */
  const lineReader = async (title: string, file: string) => {
    const w = (await ok('vm_launch', { app: 'foot', args: ['-T', title, 'sh', '-c', `IFS= read -r line; printf '%s' "$line" > ${file}`], wait_seconds: 10 })).window;
    assert.ok(w, `vm_launch reports the new window ${title}`);
    return w;
  };
  const windows = async () => (await ok('vm_list_windows')).windows as any[];
  return { id: l.id, call, ok, sh, tree, readGuest, lineReader, windows };
}

before(async () => {
  a = await connect({ dir, ...plain, fakeDir: '', configFile: config('plain', plain, [scale2, lua]), cleanup: () => {} });
  b = await connect({ dir, ...standins, fakeDir: '', configFile: config('standin', standins, [lua]), cleanup: () => {} }, { VMHUB_STANDIN_TEMPLATES: '1' });
  // All four machines start at once; each test waits only for its own.
  await Promise.all([
    create('sway', () => a, plain.instance, 'wayland-sway'),
    create('scale2', () => a, plain.instance, 'wayland-sway-scale2'),
    create('hypr-0.41.2', () => b, standins.instance, 'hyprland-standin'),
    create('hypr-0.55.4', () => b, standins.instance, 'hyprland-standin-lua'),
  ]);
});

after(async () => {
  for (const l of Object.values(leases)) await l.session().call('vm_lease_release', { lease_id: l.id }).catch(() => undefined);
  await a?.close();
  await b?.close();
  for (const i of [plain.instance, standins.instance]) await run('sh', ['-c', `docker rm -f $(docker ps -aq --filter name=vmhub-${i}-) 2>/dev/null || true`]);
  rmSync(dir, { recursive: true, force: true });
});

describe('docker + wayland-sway: an agent drives a real headless sway', () => {
  it('the template is listed and available; stand-ins are not listed without VMHUB_STANDIN_TEMPLATES', async () => {
    const templates = (await a.call('vm_list_templates')).structuredContent.templates as any[];
    const t = templates.find((x) => x.id === 'wayland-sway');
    assert.equal(t?.availability, 'available', `wayland-sway: ${t?.reason}`);
    assert.match(t.description, /sway/);
    assert.deepEqual(templates.filter((x) => /standin/.test(x.id)).map((x) => x.id), [], 'no stand-in is listed');
    const refused = await a.call('vm_lease_create', { template: 'hyprland-standin' });
    assert.equal(errorCode(refused), 'NOT_FOUND');
    assert.match(refused.structuredContent.message, /VMHUB_STANDIN_TEMPLATES=1/);
  });

  it('lease → ready (sway answers, HEADLESS-1 exists) → a 1280x800 screenshot of the output', async () => {
    const r = await ready('sway');
    assert.equal(r.status, 'ready', JSON.stringify(r));
    assert.deepEqual(r.stages.map((x: any) => x.name).slice(-3), ['container', 'display', 'desktop']);
    const l = on('sway');
    const outputs = JSON.parse(await l.sh('swaymsg -r -t get_outputs'));
    assert.deepEqual(outputs.map((o: any) => [o.name, o.scale, o.current_mode.width, o.current_mode.height]), [['HEADLESS-1', 1, 1280, 800]]);
    const inspect = JSON.parse(await docker('inspect', `vmhub-${plain.instance}-${l.id}`))[0];
    assert.equal(inspect.HostConfig.NetworkMode, 'none', 'networking off by default');
    const shot = await l.ok('vm_screenshot');
    assert.deepEqual(shot.screen, { width: 1280, height: 800 });
  });

  it('typed Unicode and shell metacharacters arrive byte-exact in a file through a foot terminal', async () => {
    await ready('sway');
    const l = on('sway');
    const text = "héllo wörld 你好 $HOME `x` 'q'";
    const w = await l.lineReader('vmhub-typed', '/tmp/typed.txt');
    await l.ok('vm_focus', { window: w.id });
    await l.ok('vm_type', { text: `${text}\n` });
    assert.equal(await l.readGuest('/tmp/typed.txt'), text);
  });

  it('a click at image coordinates of a downscaled screenshot focuses the window under it (sway\'s tree says so)', async () => {
    await ready('sway');
    const l = on('sway');
    const left = await l.lineReader('vmhub-left', '/tmp/click-left.txt');
    const right = await l.lineReader('vmhub-right', '/tmp/click-right.txt');
    assert.equal((await l.tree()).find((n) => n.focused)?.name, 'vmhub-right', 'the newest window has focus');
    const target = (await l.windows()).find((x) => x.id === left.id);
    assert.ok(target && (await l.windows()).some((x) => x.id === right.id));
    const shot = await l.call('vm_screenshot', { max_width: 640, max_height: 400 });
    assert.equal(shot.structuredContent.scale, 0.5);
    const image = shot.content.find((c: any) => c.type === 'image') as any;
    const meta = await sharp(Buffer.from(image.data, 'base64')).metadata();
    assert.deepEqual([meta.width, meta.height], [640, 400]);
    await l.ok('vm_click', { x: Math.round((target.x + target.width / 2) * 0.5), y: Math.round((target.y + target.height / 2) * 0.5) });
    await sleep(300);
    assert.equal((await l.tree()).find((n) => n.focused)?.name, 'vmhub-left', 'the click moved focus to the left window');
    await l.ok('vm_type', { text: 'clicked\n' });
    assert.equal(await l.readGuest('/tmp/click-left.txt'), 'clicked', 'keyboard input follows the click');
    await l.ok('vm_type', { text: 'done\n' }); // ends the other reader (now focused by sway)
  });

  it('a launched window appears in vm_list_windows; vm_focus and vm_close act on sway', async () => {
    await ready('sway');
    const l = on('sway');
    const first = (await l.ok('vm_launch', { app: 'foot', args: ['-T', 'vmhub-listed', 'sleep', '300'], wait_seconds: 10 })).window;
    const listed = (await l.windows()).find((x) => x.id === first.id);
    assert.equal(listed?.title, 'vmhub-listed');
    assert.equal(listed.class, 'foot');
    assert.ok(listed.width > 0 && listed.height > 0);
    const second = (await l.ok('vm_launch', { app: 'foot', args: ['-T', 'vmhub-second', 'sleep', '300'], wait_seconds: 10 })).window;
    assert.equal((await l.tree()).find((n) => n.focused)?.name, 'vmhub-second');
    await l.ok('vm_focus', { window: first.id });
    assert.equal((await l.tree()).find((n) => n.focused)?.name, 'vmhub-listed', 'vm_focus by id');
    await l.ok('vm_focus', { window: 'vmhub-second' });
    assert.equal((await l.tree()).find((n) => n.focused)?.name, 'vmhub-second', 'vm_focus by title');
    const closed = await l.ok('vm_close', { window: first.id });
    assert.equal(closed.closed, true);
    for (let i = 0; i < 20 && (await l.tree()).some((n) => n.name === 'vmhub-listed'); i++) await sleep(200);
    assert.equal((await l.tree()).some((n) => n.name === 'vmhub-listed'), false, 'gone from sway\'s tree');
    assert.equal((await l.windows()).some((x) => x.id === first.id), false, 'gone from vm_list_windows');
    assert.equal(errorCode(await l.call('vm_focus', { window: 'no-such-window-title' })), 'NOT_FOUND');
    await l.ok('vm_close', { window: second.id });
  });

  it('vm_screenshot reads the frame the capture helper shares on the host, and it shows what was typed: grim\'s pixels in the guest, to the byte', async () => {
    await ready('sway');
    const l = on('sway');
    const screen = join(`/dev/shm/vmhub-fb-${process.getuid?.() ?? 0}`, `vmhub-${plain.instance}-${l.id}`, 'screen');
    const rgb = async () => {
      const image = (await l.call('vm_screenshot')).content.find((c: any) => c.type === 'image') as any;
      return sharp(Buffer.from(image.data, 'base64')).removeAlpha().raw().toBuffer();
    };
    // A terminal that echoes what is typed.
    const w = (await l.ok('vm_launch', { app: 'foot', args: ['-T', 'vmhub-echo', 'cat'], wait_seconds: 10 })).window;
    await l.ok('vm_focus', { window: w.id });
    await sleep(300);
    const blank = await rgb();
    assert.ok(existsSync(join(screen, 'wl-capture.sock')) && existsSync(join(screen, 'Xvfb_screen0')), `the helper shares its frame in ${screen}`);
    await l.ok('vm_type', { text: 'shown in the frame' });
    let shown = blank;
    for (let i = 0; i < 50 && shown.equals(blank); i++, await sleep(100)) shown = await rgb();
    assert.ok(!shown.equals(blank), 'the typed text changes the frame');
    // The same frame as grim's in the guest (a PPM of the same pixels; retried if foot redraws between).
    let same = false;
    for (let i = 0; i < 3 && !same; i++, await sleep(200)) {
      const ours = createHash('sha256').update('P6\n1280 800\n255\n').update(await rgb()).digest('hex');
      await l.sh('grim -t ppm /tmp/grim.ppm');
      same = (await l.ok('vm_get_file', { path: '/tmp/grim.ppm', length: 16 })).sha256 === ours;
    }
    assert.ok(same, 'vm_screenshot\'s pixels are grim\'s');
    await l.ok('vm_close', { window: w.id });
  });

  it('at output scale 2 the screenshot is in physical pixels and a click lands where the image shows the window', async () => {
    const r = await ready('scale2');
    assert.equal(r.status, 'ready', JSON.stringify(r));
    const l = on('scale2');
    const [out] = JSON.parse(await l.sh('swaymsg -r -t get_outputs'));
    assert.deepEqual([out.scale, out.rect.width, out.rect.height], [2, 640, 400], 'sway runs HEADLESS-1 at scale 2: a 640x400 logical layout');
    const left = await l.lineReader('vmhub-s2-left', '/tmp/s2-left.txt');
    await l.lineReader('vmhub-s2-right', '/tmp/s2-right.txt');
    const full = await l.ok('vm_screenshot');
    assert.deepEqual(full.screen, { width: 1280, height: 800 }, 'the screen is the output in physical pixels');
    // Where sway puts the window (logical), in the guest, times the scale: where the agent sees it.
    const node = (await l.tree()).find((n) => n.name === 'vmhub-s2-left');
    const listed = (await l.windows()).find((x) => x.id === left.id);
    // The client's area inside sway's border (window_rect is relative to the container's rect).
    const content = { x: node.rect.x + node.window_rect.x, y: node.rect.y + node.window_rect.y, width: node.window_rect.width, height: node.window_rect.height };
    assert.deepEqual([listed.x, listed.y, listed.width, listed.height], [content.x * 2, content.y * 2, content.width * 2, content.height * 2], 'window geometry is reported in screen pixels');
    const shot = await l.call('vm_screenshot', { max_width: 640, max_height: 400 });
    assert.equal(shot.structuredContent.scale, 0.5);
    // image px = logical px × 2 (scale) × 0.5 (downscale)
    await l.ok('vm_click', { x: Math.round(node.rect.x + node.rect.width / 2), y: Math.round(node.rect.y + node.rect.height / 2) });
    await sleep(300);
    assert.equal((await l.tree()).find((n) => n.focused)?.name, 'vmhub-s2-left', 'the click focused the window the image shows there');
    await l.ok('vm_type', { text: 'scaled\n' });
    assert.equal(await l.readGuest('/tmp/s2-left.txt'), 'scaled');
  });

  it('release removes the containers from the engine', async () => {
    for (const key of ['sway', 'scale2']) {
      const l = leases[key]!;
      const name = `vmhub-${l.instance}-${l.id}`;
      assert.ok(await docker('inspect', '-f', '{{.State.Running}}', name));
      const r = await a.call('vm_lease_release', { lease_id: l.id });
      assert.equal(r.structuredContent.status, 'released');
      await assert.rejects(docker('inspect', name), `${name} is gone from the engine`);
      delete leases[key];
    }
  });
});

describe('docker + hyprland-standin: the Hyprland IPC paths against a stand-in, on a live sway', () => {
  it('is listed with VMHUB_STANDIN_TEMPLATES=1, marked and described as a stand-in', async () => {
    const templates = (await b.call('vm_list_templates')).structuredContent.templates as any[];
    const t = templates.find((x) => x.id === 'hyprland-standin');
    assert.equal(t?.availability, 'available', `hyprland-standin: ${t?.reason}`);
    assert.match(t.description, /^Stand-in for Hyprland: real sway/);
    assert.match(t.description, /0\.41\.2/);
    assert.match(t.description, /0\.55\.4/);
  });

  for (const version of ['0.41.2', '0.55.4']) {
    it(`Hyprland ${version}: list, focus and close go through the IPC socket and act on sway`, async () => {
      const key = `hypr-${version}`;
      const r = await ready(key);
      assert.equal(r.status, 'ready', JSON.stringify(r));
      assert.equal(r.stages.at(-1).name, 'hyprland-ipc');
      const l = on(key);
      // The instance in the guest plays this version (its own answer to j/version).
      // One raw request to the instance's socket from inside the guest, as hyprctl would send it.
      const hypr = (request: string) => l.sh(`python3 -c 'import os,socket,sys;s=socket.socket(socket.AF_UNIX);s.connect(os.environ["XDG_RUNTIME_DIR"]+"/hypr/"+os.environ["VMHUB_HYPRLAND_SIGNATURE"]+"/.socket.sock");s.sendall(sys.argv[1].encode());print(s.makefile().read())' '${request}'`);
      assert.equal(JSON.parse(await hypr('j/version')).tag, `v${version}`, 'the instance plays this version');
      const first = (await l.ok('vm_launch', { app: 'foot', args: ['-T', `vmhub-h-${version}`, 'sleep', '300'], wait_seconds: 10 })).window;
      const second = (await l.ok('vm_launch', { app: 'foot', args: ['-T', 'vmhub-h-other', 'sleep', '300'], wait_seconds: 10 })).window;
      const listed = (await l.windows()).find((x) => x.id === first.id);
      assert.equal(listed?.title, `vmhub-h-${version}`);
      assert.match(first.id, /^0x[0-9a-f]+$/, 'windows are Hyprland client addresses');
      assert.equal((await l.tree()).find((n) => n.focused)?.name, 'vmhub-h-other');
      await l.ok('vm_focus', { window: first.id });
      assert.equal((await l.tree()).find((n) => n.focused)?.name, `vmhub-h-${version}`, 'focuswindow reached sway');
      assert.equal((await l.windows()).find((x) => x.id === first.id)?.focused, true, 'and j/clients / j/activewindow say so');
      // The syntax matters: each version refuses the other's dispatcher (so the adapter chose right).
      const hyprlang = await hypr(`dispatch focuswindow address:${second.id}`);
      const luaSyntax = await hypr(`dispatch hl.dsp.focus({window = "address:${second.id}"})`);
      if (version === '0.41.2') assert.deepEqual([hyprlang.trim(), luaSyntax.trim() === 'ok'], ['ok', false], `0.41.2: ${hyprlang} / ${luaSyntax}`);
      else assert.deepEqual([hyprlang.trim() === 'ok', luaSyntax.trim()], [false, 'ok'], `0.55.4: ${hyprlang} / ${luaSyntax}`);
      await l.ok('vm_focus', { window: first.id });
      assert.equal((await l.ok('vm_close', { window: first.id })).closed, true);
      for (let i = 0; i < 20 && (await l.tree()).some((n) => n.name === `vmhub-h-${version}`); i++) await sleep(200);
      assert.equal((await l.tree()).some((n) => n.name === `vmhub-h-${version}`), false, 'closewindow reached sway');
      assert.equal((await l.windows()).some((x) => x.id === first.id), false);
      assert.ok((await l.windows()).some((x) => x.id === second.id));
    });
  }

  it('release removes the stand-in containers', async () => {
    for (const key of ['hypr-0.41.2', 'hypr-0.55.4']) {
      const l = leases[key]!;
      const r = await b.call('vm_lease_release', { lease_id: l.id });
      assert.equal(r.structuredContent.status, 'released');
      await assert.rejects(docker('inspect', `vmhub-${l.instance}-${l.id}`));
      delete leases[key];
    }
  });
});
