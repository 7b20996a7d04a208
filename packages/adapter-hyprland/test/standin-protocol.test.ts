/**
 * The Hyprland IPC stand-in (standins/goldens/hyprland-standin/hyprland-ipc-standin.py) at the protocol
 * level, over its real sockets, beside a live headless sway: the request format (flags, batch,
 * 1023-byte reads until a short one, reply then close), the JSON shapes recorded from Hyprland's source
 * (key lists below: hyprwm/Hyprland src/debug/HyprCtl.cpp at tags v0.41.2 and v0.55.4,
 * src/helpers/SystemInfo.cpp at v0.55.4), the two dispatch syntaxes, and events on socket2.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until } from '@vmhub/test-kit';
import { NOBODY, startSway, type SwaySession } from './sway-session.ts';
import { STANDIN } from './desktop.ts';

const CLIENT_041 = ['address', 'mapped', 'hidden', 'at', 'size', 'workspace', 'floating', 'pseudo', 'monitor', 'class', 'title', 'initialClass', 'initialTitle', 'pid', 'xwayland', 'pinned', 'fullscreen', 'fullscreenMode', 'fakeFullscreen', 'grouped', 'tags', 'swallowing', 'focusHistoryID'];
const CLIENT_055 = ['address', 'mapped', 'hidden', 'visible', 'acceptsInput', 'at', 'size', 'workspace', 'floating', 'monitor', 'class', 'title', 'initialClass', 'initialTitle', 'pid', 'xwayland', 'pinned', 'fullscreen', 'fullscreenClient', 'overFullscreen', 'grouped', 'tags', 'swallowing', 'focusHistoryID', 'inhibitingIdle', 'xdgTag', 'xdgDescription', 'contentType', 'stableId'];
const MONITOR_041 = ['id', 'name', 'description', 'make', 'model', 'serial', 'width', 'height', 'refreshRate', 'x', 'y', 'activeWorkspace', 'specialWorkspace', 'reserved', 'scale', 'transform', 'focused', 'dpmsStatus', 'vrr', 'activelyTearing', 'disabled', 'currentFormat', 'availableModes'];
const MONITOR_055 = ['id', 'name', 'description', 'make', 'model', 'serial', 'width', 'height', 'physicalWidth', 'physicalHeight', 'refreshRate', 'x', 'y', 'activeWorkspace', 'specialWorkspace', 'reserved', 'scale', 'transform', 'focused', 'dpmsStatus', 'vrr', 'solitary', 'solitaryBlockedBy', 'activelyTearing', 'tearingBlockedBy', 'directScanoutTo', 'directScanoutBlockedBy', 'disabled', 'currentFormat', 'mirrorOf', 'availableModes', 'colorManagementPreset', 'sdrBrightness', 'sdrSaturation', 'sdrMinLuminance', 'sdrMaxLuminance', 'hardwareCursorsInUse'];
const VERSION_041 = ['branch', 'commit', 'dirty', 'commit_message', 'commit_date', 'tag', 'commits', 'flags'];
const VERSION_055 = ['branch', 'commit', 'version', 'dirty', 'commit_message', 'commit_date', 'tag', 'commits', 'buildAquamarine', 'buildHyprlang', 'buildHyprutils', 'buildHyprcursor', 'buildHyprgraphics', 'systemAquamarine', 'systemHyprlang', 'systemHyprutils', 'systemHyprcursor', 'systemHyprgraphics', 'abiHash', 'flags'];

/** One request, one connection, read until the stand-in closes (as Hyprland's clients do). */
function request(path: string, text: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    const chunks: Buffer[] = [];
    s.on('connect', () => s.write(text));
    s.on('data', (c) => chunks.push(c));
    s.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    s.on('error', reject);
    s.setTimeout(8000, () => { s.destroy(); reject(new Error(`no reply to ${String(text).slice(0, 40)}`)); });
  });
}

for (const version of ['0.41.2', '0.55.4'] as const) {
  const lua = version === '0.55.4';
  describe(`Hyprland IPC stand-in playing ${version} (${lua ? 'Lua' : 'hyprlang'} dispatchers)`, { timeout: 120_000 }, () => {
    let sway: SwaySession;
    let dir: string;
    let sock: string;
    const ask = (t: string) => request(sock, t);
    const json = async <T>(t: string) => JSON.parse(await ask(t)) as T;
    before(async () => {
      sway = await startSway();
      sway.spawn(['/usr/bin/python3', STANDIN, '--version', version, '--signature', `sig-${version}`]);
      dir = join(sway.runtimeDir, 'hypr', `sig-${version}`);
      sock = join(dir, '.socket.sock');
      await until(async () => { try { return (await ask('j/version')).length > 0; } catch { return undefined; } }, 'stand-in socket', 10_000, 100);
    });
    after(async () => { await sway?.stop(); });

    it('writes hyprland.lock: its pid, then WAYLAND_DISPLAY', () => {
      const [pid, wayland] = readFileSync(join(dir, 'hyprland.lock'), 'utf8').split('\n');
      assert.ok(Number(pid) > 1);
      assert.equal(wayland, 'wayland-1');
    });

    it('answers j/version in the recorded shape, plain version as text', async () => {
      const v = await json<Record<string, unknown>>('j/version');
      assert.deepEqual(Object.keys(v), lua ? VERSION_055 : VERSION_041);
      assert.equal(v.tag, `v${version}`);
      if (lua) assert.equal(v.version, version);
      assert.match(await ask('version'), new RegExp(`Tag: v${version.replace(/\./g, '\\.')}`));
    });

    it('answers j/monitors from sway outputs in the recorded shape', async () => {
      const [m, ...rest] = await json<Record<string, unknown>[]>('j/monitors');
      assert.equal(rest.length, 0);
      assert.deepEqual(Object.keys(m!), lua ? MONITOR_055 : MONITOR_041);
      assert.equal(m!.name, 'HEADLESS-1');
      assert.deepEqual([m!.width, m!.height, m!.x, m!.y, m!.scale], [1280, 800, 0, 0, 1]);
    });

    it('has no clients and an empty activewindow before any window', async () => {
      assert.deepEqual(await json('j/clients'), []);
      assert.equal(await ask('j/activewindow'), '{}');
      assert.equal(await ask('activewindow'), 'Invalid');
    });

    it('dispatch exec starts a program in the sway session; j/clients shows it in the recorded shape, events on socket2', async () => {
      const events: string[] = [];
      const ev = connect(join(dir, '.socket2.sock'));
      ev.on('data', (c) => events.push(...c.toString('utf8').split('\n').filter(Boolean)));
      await new Promise((r) => ev.once('connect', r));
      const exec = lua ? 'dispatch hl.dsp.exec_cmd("foot -T \\039one\\039 sleep 60")' : "dispatch exec foot -T 'one' sleep 60";
      assert.equal(await ask(exec), 'ok');
      const [c] = await until(async () => { const cs = await json<Record<string, unknown>[]>('j/clients'); return cs.length ? cs : undefined; }, 'a client', 10_000, 100);
      assert.deepEqual(Object.keys(c!), lua ? CLIENT_055 : CLIENT_041);
      assert.match(String(c!.address), /^0x[0-9a-f]+$/);
      assert.deepEqual([c!.class, c!.title, c!.mapped, c!.focusHistoryID], ['foot', 'one', true, 0]);
      assert.deepEqual(c!.at, [0, 0]);
      assert.deepEqual(c!.size, [1280, 800]);
      assert.deepEqual(Object.keys(await json('j/activewindow')), lua ? CLIENT_055 : CLIENT_041);
      await until(() => events.find((e) => e.startsWith(`openwindow>>${String(c!.address).slice(2)},`)), 'openwindow event', 5000);
      ev.destroy();
    });

    it('focus and close dispatchers act on sway; the other syntax is refused as the real one refuses it', async () => {
      assert.equal(await ask(lua ? "dispatch hl.dsp.exec_cmd('foot -T two sleep 60')" : 'dispatch exec foot -T two sleep 60'), 'ok');
      const cs = await until(async () => { const v = await json<{ address: string; title: string; focusHistoryID: number }[]>('j/clients'); return v.length === 2 ? v : undefined; }, 'two clients', 10_000, 100);
      const one = cs.find((c) => c.title === 'one')!, two = cs.find((c) => c.title === 'two')!;
      assert.equal(two.focusHistoryID, 0);
      const wrong = lua ? `dispatch focuswindow address:${one.address}` : `dispatch hl.dsp.focus({ window = "address:${one.address}" })`;
      const refused = await ask(wrong);
      if (lua) assert.match(refused, /expected near|unexpected symbol/);
      else assert.equal(refused, 'Invalid dispatcher');
      const focus = lua ? `dispatch hl.dsp.focus({ window = "address:${one.address}" })` : `dispatch focuswindow address:${one.address}`;
      assert.equal(await ask(focus), 'ok');
      await until(async () => (await json<{ title: string }>('j/activewindow')).title === 'one' || undefined, 'one focused', 5000, 100);
      assert.match(sway.swaymsg('-t', 'get_tree'), /"focused": true,[\s\S]*?"name": "one"|"name": "one"[\s\S]*?"focused": true/);
      const close = lua ? `dispatch hl.dsp.window.close({ window = "address:${two.address}" })` : `dispatch closewindow address:${two.address}`;
      assert.equal(await ask(close), 'ok');
      await until(async () => ((await json<{ title: string }[]>('j/clients')).some((c) => c.title === 'two') ? undefined : true), 'two gone', 5000, 100);
    });

    it('speaks the request framing: flags, batch, unknown requests, requests longer than one 1023-byte read', async () => {
      assert.match(await ask('clients'), /^Window [0-9a-f]+ -> one:\n\tmapped: 1\n/);
      const batch = (await ask('[[BATCH]]j/version;j/monitors')).split('\n\n\n');
      assert.equal(batch.length, 2);
      assert.equal(JSON.parse(batch[0]!).tag, `v${version}`);
      assert.equal(JSON.parse(batch[1]!)[0].name, 'HEADLESS-1');
      assert.equal(await ask('j/nosuchthing'), 'unknown request');
      // Every character before "/" is a flag and unknown ones are ignored, as in getReply.
      assert.equal(JSON.parse(await ask(`${'x'.repeat(1100)}j/version`)).tag, `v${version}`);
      const long = `: ${'y'.repeat(2100)}; exit 0`;
      assert.equal(await ask(lua ? `dispatch hl.dsp.exec_cmd("${long}")` : `dispatch exec ${long}`), 'ok', 'a 2 KiB request is read whole');
      assert.equal(await ask(lua ? 'eval hl.dispatch(hl.dsp.no_such())' : 'eval hl.dispatch(hl.dsp.focus({}))'), lua ? "attempt to call a nil value (field 'no_such')" : 'unknown request');
    });
  });
}

void NOBODY;
