/**
 * The debian-desktop golden on the real engine: a fresh container of it becomes ready only once
 * XFCE is up (xfwm4, panel, desktop, the accessibility bus), at the template's 1920x1080 (another
 * screen is a template option), with sshd running on the lease's own key; then each application — Firefox ESR, LibreOffice Writer and
 * Calc, mousepad, thunar — starts and shows its main window within the time
 * docs/golden-images.md gives, with no first-run dialog (no new window besides the main one, no
 * title of a welcome, tip, default-browser, panel or recovery dialog; no such text in the app's
 * accessibility tree; Firefox has one tab, also on its second start, when it shows its privacy
 * notice unless told not to), and the AT-SPI tree (python3-pyatspi, what adapter-x11's
 * vm_inspect runs) lists the app. Each app is killed (thunar's window, owned by the session's
 * Thunar daemon, is closed) and seen gone before the next starts.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { machineIdentity, type GuestChannel, type MachineRef, type TemplateConfig } from '@vmhub/core';
import { until } from '@vmhub/test-kit';
import { DOCKER_TEMPLATES } from '../src/index.ts';
import { docker, ensureGolden, makeProvider, removeContainers } from './fixture.ts';

const GOLDEN = 'debian-desktop';
const desktopTemplate = (): TemplateConfig => {
  const t = DOCKER_TEMPLATES.find((x) => x.id === GOLDEN);
  assert.ok(t, `the docker provider offers template ${GOLDEN}`);
  return t;
};

/** Titles no fresh lease may show: first-run, tip, default-browser, panel-setup, recovery dialogs. */
const FIRST_RUN = /welcome|tip of the day|default browser|^panel$|privacy|what's new|release notes|get involved|donat|import|document recovery|first start/i;

/** Each app, how it is started, what its main window's title is, its AT-SPI application name, and the time docs/golden-images.md gives it. */
const APPS = [
  { name: 'firefox-esr', argv: ['firefox-esr'], title: /^Mozilla Firefox$/, atspi: 'Firefox', withinS: 30 },
  { name: 'libreoffice --writer', argv: ['libreoffice', '--writer'], title: /^Untitled 1 - LibreOffice Writer$/, atspi: 'soffice', withinS: 30 },
  { name: 'libreoffice --calc', argv: ['libreoffice', '--calc'], title: /^Untitled 1 - LibreOffice Calc$/, atspi: 'soffice', withinS: 30 },
  { name: 'mousepad', argv: ['mousepad'], title: /^Untitled 1 - Mousepad$/, atspi: 'mousepad', withinS: 15 },
  { name: 'thunar', argv: ['thunar'], title: / - Thunar$/, atspi: 'Thunar', withinS: 15, close: true },
];

/**
 * The AT-SPI view of one application (python3-pyatspi, as vm_inspect): every application's name,
 * and for the one named argv[1] the (role, name) of its nodes, walked to depth 14 within 6000 nodes.
 */
const ATSPI_APP = String.raw`
import json, sys
import pyatspi
want, budget = sys.argv[1], [6000]
desktop = pyatspi.Registry.getDesktop(0)
apps, nodes = [], []
def walk(acc, depth):
    budget[0] -= 1
    try: nodes.append([acc.getRoleName(), acc.name or ""])
    except Exception: return
    if depth >= 14: return
    try: count = acc.childCount
    except Exception: return
    for i in range(count):
        if budget[0] <= 0: return
        try:
            child = acc.getChildAtIndex(i)
            if child is not None: walk(child, depth + 1)
        except Exception: pass
for i in range(desktop.childCount):
    app = desktop.getChildAtIndex(i)
    if app is None: continue
    apps.append(app.name)
    if app.name == want: walk(app, 0)
json.dump({"apps": apps, "nodes": nodes}, sys.stdout)
`;

interface Window { id: string; pid: number; title: string }

describe('docker: the debian-desktop golden', { timeout: 900_000 }, () => {
  const made: MachineRef[] = [];
  let ch: GuestChannel;
  let stagesSeen: string[] = [];
  const { provider, context } = makeProvider();

  const sh = async (script: string, timeoutMs = 30_000): Promise<string> => {
    const r = await ch.exec(['sh', '-c', script], { timeoutMs });
    assert.equal(r.exit_code, 0, `${script}: ${r.stderr.toString('utf8')}`);
    return r.stdout.toString('utf8');
  };
  /** Managed windows (wmctrl -lp): id, owner pid, title; asked again when a window went away while wmctrl read it (BadWindow). */
  const windows = async (): Promise<Window[]> => {
    const out = await until(async () => {
      const r = await ch.exec(['wmctrl', '-lp']);
      if (r.exit_code === 0) return r.stdout.toString('utf8');
      assert.match(r.stderr.toString('utf8'), /BadWindow/, `wmctrl -lp: ${r.stderr.toString('utf8')}`);
      return undefined;
    }, 'wmctrl -lp to read every window', 5000, 50);
    return out.split('\n').filter(Boolean).map((line) => {
      const [id, , pid, , ...title] = line.split(/\s+/);
      return { id: id!, pid: Number(pid), title: title.join(' ') };
    });
  };
  const atspi = async (app: string): Promise<{ apps: string[]; nodes: [string, string][] }> => {
    const r = await ch.exec(['python3', '-', app], { stdin: ATSPI_APP, timeoutMs: 60_000, maxOutputBytes: 8 * 1024 * 1024 });
    assert.equal(r.exit_code, 0, r.stderr.toString('utf8'));
    return JSON.parse(r.stdout.toString('utf8'));
  };
  const create = async (template: TemplateConfig): Promise<MachineRef> => {
    const lease = randomUUID();
    const m = await provider.create({ lease_id: lease, identity: machineIdentity(context.instance, lease), template, signal: AbortSignal.timeout(60_000) });
    made.push(m);
    return m;
  };

  before(async () => {
    await ensureGolden(GOLDEN);
    const template = desktopTemplate();
    const m = await create(template);
    stagesSeen = [];
    await provider.ready(m, { signal: AbortSignal.timeout(120_000), template, stage: (name, status) => { if (status === 'done') stagesSeen.push(name); } });
    ch = await provider.channel!(m, template);
  });
  after(async () => {
    await ch?.close();
    await removeContainers(...made.map((m) => m.external_id));
    await provider.close?.();
  });

  it('is a normal template (docker, x11, linux) whose lease runs sshd with its own key and whose screen is 1920x1080', async () => {
    const t = desktopTemplate();
    assert.deepEqual([t.provider, t.adapter, t.os, t.standin ?? false], ['docker', 'x11', 'linux', false]);
    const image = JSON.parse((await docker.raw('GET', `/images/${t.golden}/json`)).body.toString('utf8')) as { Config: { Labels: Record<string, string> } };
    assert.equal(image.Config.Labels['vmhub.ssh.port'], '22');
    assert.match(await sh('pgrep -a sshd'), /sshd -D -e -o AllowUsers=user/);
    assert.equal((await sh('wc -l < ~/.ssh/authorized_keys')).trim(), '1', "the lease's key, the only one");
    assert.match(await sh('xdpyinfo | grep dimensions'), /1920x1080 pixels/);
  });

  it('is ready only once XFCE is up: xfwm4, a visible panel and desktop, the accessibility bus — and no first-run dialog of the panel', async () => {
    assert.deepEqual(stagesSeen, ['container', 'display', 'window-manager', 'desktop']);
    assert.match(await sh('wmctrl -m'), /^Name: Xfwm4$/m);
    const titles = (await windows()).map((w) => w.title).sort();
    assert.deepEqual([...new Set(titles)], ['Desktop', 'xfce4-panel'], `only the desktop and the panel: ${titles.join(' | ')}`);
    assert.match(await sh('xprop -root AT_SPI_BUS'), /unix:path=/);
    const { apps } = await atspi('xfce4-panel');
    for (const a of ['xfwm4', 'xfce4-panel', 'xfdesktop']) assert.ok(apps.includes(a), `AT-SPI lists ${a}: ${apps.join(', ')}`);
  });

  /** Start an app, wait for its main window, check for first-run dialogs; returns the window and how long it took. */
  const launch = async (app: (typeof APPS)[number]): Promise<{ main: Window; ms: number }> => {
    const before = new Set((await windows()).map((w) => w.id));
    const started = Date.now();
    await sh(`setsid ${app.argv.join(' ')} >/dev/null 2>&1 </dev/null &`);
    const main = await until(async () => (await windows()).find((w) => !before.has(w.id) && app.title.test(w.title)), `${app.name}'s main window`, app.withinS * 1000, 100);
    const ms = Date.now() - started;
    // A first-run dialog or tab comes right after the main window: give it time to show.
    await new Promise((r) => setTimeout(r, 5000));
    const now = await windows();
    const added = now.filter((w) => !before.has(w.id));
    assert.deepEqual(added.map((w) => w.title), [main.title], `${app.name} opened its main window only`);
    for (const w of now) assert.doesNotMatch(w.title, FIRST_RUN, `no first-run dialog: ${w.title}`);
    const { apps, nodes } = await atspi(app.atspi);
    assert.ok(apps.includes(app.atspi), `AT-SPI lists ${app.atspi}: ${apps.join(', ')}`);
    assert.ok(nodes.some(([role, name]) => role === 'frame' && app.title.test(name)), `AT-SPI has ${app.name}'s frame`);
    for (const [role, name] of nodes) {
      assert.notEqual(role, 'dialog', `no dialog in ${app.name}: ${name}`);
      // Menus name these on purpose (LibreOffice's Help > Show Tip of the Day, Get Involved, Donate).
      if (!role.includes('menu')) assert.doesNotMatch(name, FIRST_RUN, `no first-run text in ${app.name}'s tree (${role})`);
    }
    if (app.atspi === 'Firefox') {
      const tabs = nodes.filter(([role]) => role === 'page tab');
      assert.equal(tabs.length, 1, `one tab, no welcome or privacy notice tab: ${tabs.map(([, n]) => n).join(' | ')}`);
    }
    return { main, ms };
  };

  /** Kill the app (thunar: close its window, the session's daemon owns it) and see it gone. */
  const stop = async (app: (typeof APPS)[number], main: Window): Promise<void> => {
    await sh(app.close ? `wmctrl -i -c ${main.id}` : `kill ${main.pid}`);
    await until(async () => ((await windows()).some((w) => w.id === main.id) ? undefined : true), `${app.name}'s window to go`, 20_000, 100);
    if (!app.close) await until(async () => ((await ch.exec(['kill', '-0', String(main.pid)])).exit_code !== 0 ? true : undefined), `${app.name} (pid ${main.pid}) to exit`, 20_000, 100);
  };

  for (const app of APPS) {
    it(`${app.name} shows its main window within ${app.withinS} s with no first-run dialog, is in the AT-SPI tree, and is gone once killed`, async () => {
      const { main, ms } = await launch(app);
      process.stderr.write(`[golden-desktop] ${app.name}: main window in ${(ms / 1000).toFixed(1)} s\n`);
      await stop(app, main);
    });
  }

  it('firefox-esr started a second time shows no privacy notice or welcome tab either', async () => {
    const firefox = APPS[0]!;
    const { main } = await launch(firefox);
    await stop(firefox, main);
  });

  it('the screen is a template option: provider_options.screen 1280x800x24 gives a 1280x800 desktop', async () => {
    const base = desktopTemplate();
    const template = { ...base, provider_options: { ...base.provider_options, screen: '1280x800x24' } };
    const m = await create(template);
    await provider.ready(m, { signal: AbortSignal.timeout(120_000), template, stage: () => {} });
    const small = await provider.channel!(m, template);
    try {
      const r = await small.exec(['sh', '-c', 'xdpyinfo | grep dimensions']);
      assert.match(r.stdout.toString('utf8'), /1280x800 pixels/);
    } finally {
      await small.close();
    }
  });
});
