/**
 * x11 with real GTK 3 apps (python3-gi): inspect with a real AT-SPI stack — a GTK window in its
 * own session D-Bus, found by the adapter's dumper through the root window's AT_SPI_BUS property
 * as a separate exec in the guest would —, its budgets on a window of 4000 labels, and paste through
 * CLIPBOARD + ctrl+v into a GTK entry. Needs Debian's at-spi2-core, python3-pyatspi,
 * python3-gi, gir1.2-gtk-3.0, libatk-adaptor and dbus on the test host (system /usr/bin/python3).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElementNode } from '@vmhub/core';
import { createHostChannel } from '@vmhub/test-kit/host-channel';
import { until } from '@vmhub/test-kit';
import { createX11Adapter } from '../src/index.ts';
import { openLease } from './context.ts';
import { fileText } from './desktop.ts';
import { startXSession, type XSession } from './x-session.ts';

const GTK_APP = `
import sys, gi
gi.require_version('Gtk', '3.0')
from gi.repository import Gtk
w = Gtk.Window(title=sys.argv[1])
b = Gtk.Button(label='Press me ✓')
w.add(b)
w.connect('destroy', Gtk.main_quit)
w.show_all()
Gtk.main()
`;

const GTK_ENTRY = `
import os, sys, gi
gi.require_version('Gtk', '3.0')
from gi.repository import Gtk
w = Gtk.Window(title=sys.argv[1])
e = Gtk.Entry()
def done(entry):
    # Renamed into place: the test polls for the file and must never read it half-written.
    with open(sys.argv[2] + '.tmp', 'w', encoding='utf-8') as f:
        f.write(entry.get_text())
    os.replace(sys.argv[2] + '.tmp', sys.argv[2])
e.connect('activate', done)
w.add(e)
w.connect('destroy', Gtk.main_quit)
w.show_all()
Gtk.main()
`;

let x: XSession;
let app: ChildProcess | undefined;
before(async () => { x = await startXSession(); });
after(async () => {
  // dbus-run-session, its bus, the a11y bus launcher and the app share one process group.
  if (app?.pid) { try { process.kill(-app.pid, 'SIGTERM'); } catch { /* gone */ } }
  await x?.stop();
});

function find(node: ElementNode, pred: (n: ElementNode) => boolean): ElementNode | undefined {
  if (pred(node)) return node;
  for (const c of node.children ?? []) { const hit = find(c, pred); if (hit) return hit; }
  return undefined;
}

describe('x11: inspect (AT-SPI)', () => {
  it('before any accessible app runs there is no bus: CAPABILITY_UNAVAILABLE saying so', async () => {
    const env = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', HOME: x.home, DBUS_SESSION_BUS_ADDRESS: 'disabled:' };
    const { session, ctx } = await openLease(createX11Adapter({ display: x.display }), createHostChannel({ home: x.home, env }), { display: x.display });
    await assert.rejects(session.inspect!(ctx, { max_depth: 3, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 }), (err: { code?: string; message?: string }) =>
      err.code === 'CAPABILITY_UNAVAILABLE' && /no accessibility bus runs/.test(err.message ?? ''));
    await session.dispose();
  });

  it('returns the accessibility tree of a GTK window with roles, names and screen extents', async () => {
    // System python (with pyatspi) first: a pyenv/venv python3 lacks the module.
    const env = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', HOME: x.home };
    const script = join(x.home, 'gtkapp.py');
    writeFileSync(script, GTK_APP);
    const title = `a11y-${randomBytes(3).toString('hex')}`;
    app = spawn('dbus-run-session', ['--', '/usr/bin/python3', script, title], { env: { ...process.env, ...x.env, ...env }, stdio: 'ignore', detached: true });
    const channel = createHostChannel({ home: x.home, env });
    const { session, ctx } = await openLease(createX11Adapter({ display: x.display }), channel, { display: x.display });
    const win = await until(async () => (await session.listWindows!(ctx)).find((w) => w.title === title && w.visible), 'GTK window', 20_000, 200);
    const unavailable = await session.probe!(ctx);
    assert.equal(unavailable.inspect, undefined, `probe: ${JSON.stringify(unavailable)}`);
    const r = await until(async () => {
      const t = await session.inspect!(ctx, { max_depth: 12, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 });
      return find(t.tree, (n) => n.role === 'push button') ? t : undefined;
    }, 'button in the tree', 15_000, 500);
    assert.equal(r.source, 'at-spi');
    const frame = find(r.tree, (n) => n.role === 'frame' && n.name === title);
    assert.ok(frame, JSON.stringify(r.tree).slice(0, 500));
    const button = find(frame, (n) => n.role === 'push button')!;
    assert.equal(button.name, 'Press me ✓');
    assert.ok(button.states?.includes('showing'));
    // Extents are screen pixels inside the window's client area (as vm_list_windows reports it).
    assert.ok(button.x! >= win.x && button.y! >= win.y && button.x! + button.width! <= win.x + win.width && button.y! + button.height! <= win.y + win.height, `${JSON.stringify(button)} vs ${JSON.stringify(win)}`);
    const shallow = await session.inspect!(ctx, { max_depth: 1, scope: 'desktop', max_nodes: 2000, timeout_ms: 10_000 });
    assert.equal(find(shallow.tree, (n) => n.role === 'push button'), undefined, 'max_depth bounds the tree');
    // The WM's active window is the root even when the budget is spent before the walk looks for
    // it (by AT-SPI's own "active" state that search stops at the deadline: the desktop). A small
    // app: one with thousands of elements can take longer than the search's grace to answer a new
    // AT-SPI client at all (CI h14, under load: it did not answer in time).
    await until(async () => ((await session.focus!(ctx, { window: win.id })).focused ? true : undefined), 'focused', 5000, 100);
    const late = await session.inspect!(ctx, { max_depth: 12, scope: 'window', max_nodes: 100, timeout_ms: 1 });
    assert.deepEqual([late.scope, late.tree.name, late.truncated], ['window', title, 'time'], 'a spent budget still answers the active window');
    await session.dispose();
  });
});

const GTK_MANY = `
import sys, gi
gi.require_version('Gtk', '3.0')
from gi.repository import Gtk
w = Gtk.Window(title=sys.argv[1])
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
for i in range(int(sys.argv[2])):
    box.pack_start(Gtk.Label(label='row %d' % i), False, False, 0)
s = Gtk.ScrolledWindow()
s.add(box)
w.add(s)
w.set_default_size(400, 300)
w.connect('destroy', Gtk.main_quit)
w.show_all()
Gtk.main()
`;

describe('x11: inspect is bounded (a window with 4000 labels)', () => {
  it('the focused window by default; the node budget and the time budget each cut the walk with the reason, and the desktop stays usable', async () => {
    const env = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', HOME: x.home };
    const script = join(x.home, 'many.py');
    writeFileSync(script, GTK_MANY);
    const title = `many-${randomBytes(3).toString('hex')}`;
    const many = spawn('dbus-run-session', ['--', '/usr/bin/python3', script, title, '4000'], { env: { ...process.env, ...x.env, ...env }, stdio: 'ignore', detached: true });
    try {
      const { session, ctx } = await openLease(createX11Adapter({ display: x.display }), createHostChannel({ home: x.home, env }), { display: x.display });
      const win = await until(async () => (await session.listWindows!(ctx)).find((w) => w.title === title && w.visible), 'GTK window', 20_000, 200);
      await until(async () => ((await session.focus!(ctx, { window: win.id })).focused ? true : undefined), 'focused', 5000, 100);
      const byNodes = await until(async () => {
        const t = await session.inspect!(ctx, { max_depth: 50, scope: 'window', max_nodes: 100, timeout_ms: 10_000 });
        return t.scope === 'window' && t.tree.name === title ? t : undefined;
      }, 'the focused window as the root', 15_000, 500);
      assert.equal(byNodes.truncated, 'nodes');
      let count = 0;
      const walk = (n: ElementNode) => { count += 1; (n.children ?? []).forEach(walk); };
      walk(byNodes.tree);
      assert.equal(count, 100);
      assert.ok(find(byNodes.tree, (n) => n.role === 'label' && n.name === 'row 0'), 'the first rows are read');
      const t0 = Date.now();
      const byTime = await session.inspect!(ctx, { max_depth: 50, scope: 'window', max_nodes: 5000, timeout_ms: 1000 });
      const ms = Date.now() - t0;
      assert.equal(byTime.truncated, 'time', `4000 labels in 1 s: ${JSON.stringify(byTime).length} bytes`);
      assert.ok(ms < 2500, `answered in ${ms} ms (budget 1000 + the helper's start)`);
      const whole = await session.inspect!(ctx, { max_depth: 3, scope: 'desktop', max_nodes: 50, timeout_ms: 5000 });
      assert.equal(whole.scope, 'desktop');
      assert.equal(whole.tree.role, 'desktop frame');
      assert.ok((await session.listWindows!(ctx)).some((w) => w.title === title), 'the desktop still answers');
      // An application that does not answer at all (stopped): the search for the WM's active window
      // in it is bounded like the walk, so the answer comes within the budget and the helper's
      // grace, naming the desktop — not an empty tree from a killed helper.
      const pid = Number(execFileSync('pgrep', ['-f', `^/usr/bin/python3 .*many.py ${title}`], { encoding: 'utf8' }).trim().split('\n')[0]);
      process.kill(pid, 'SIGSTOP');
      try {
        for (const budget of [500, 3000]) {
          const s0 = Date.now();
          const stuck = await session.inspect!(ctx, { max_depth: 50, scope: 'window', max_nodes: 100, timeout_ms: budget });
          const took = Date.now() - s0;
          assert.deepEqual([stuck.scope, stuck.tree.role], ['desktop', 'desktop frame'], `budget ${budget}: ${JSON.stringify(stuck).slice(0, 300)}`);
          assert.ok(took < budget + 1500, `budget ${budget}: answered in ${took} ms`);
        }
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      await session.dispose();
    } finally {
      if (many.pid) { try { process.kill(-many.pid, 'SIGTERM'); } catch { /* gone */ } }
    }
  });
});

describe('x11: paste into a GTK app (CLIPBOARD + ctrl+v)', () => {
  it('the text lands in a GTK entry and the previous CLIPBOARD content is back', async () => {
    const env = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin', HOME: x.home };
    const script = join(x.home, 'entry.py');
    const out = join(x.home, `entry-${randomBytes(3).toString('hex')}.txt`);
    writeFileSync(script, GTK_ENTRY);
    const title = `entry-${randomBytes(3).toString('hex')}`;
    x.spawnX(['/usr/bin/python3', script, title, out]);
    const { session, ctx } = await openLease(createX11Adapter({ display: x.display }), createHostChannel({ home: x.home, env }), { display: x.display });
    const win = await until(async () => (await session.listWindows!(ctx)).find((w) => w.title === title && w.visible), 'GTK entry window', 20_000, 200);
    await until(async () => ((await session.focus!(ctx, { window: win.id })).focused ? true : undefined), 'focused', 5000, 100);
    execFileSync('sh', ['-c', 'printf %s "$1" | xclip -selection clipboard -i >/dev/null 2>&1', 'sh', 'old clipboard ✓'], { env: { ...process.env, ...x.env } });
    await until(() => (execFileSync('xclip', ['-selection', 'clipboard', '-o'], { env: { ...process.env, ...x.env } }).toString() === 'old clipboard ✓' ? true : undefined), 'clipboard set', 3000);
    const text = `gtk paste ✓ Привет 粘贴 '$(id)'`;
    await session.paste!(ctx, { text });
    await session.key!(ctx, { keys: 'Return' });
    assert.equal(await fileText(out, 5000), text);
    assert.equal(execFileSync('xclip', ['-selection', 'clipboard', '-o'], { env: { ...process.env, ...x.env } }).toString(), 'old clipboard ✓');
    await session.dispose();
  });
});
