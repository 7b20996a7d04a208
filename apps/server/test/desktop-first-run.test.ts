// The debian-desktop golden opens straight to work, read the way an agent reads it: through the
// BUILT server, each application started with vm_launch on a fresh lease shows its main window,
// and OCR of the whole screen (vm_find_text) finds none of the first-run dialogs' words — no
// welcome page, tip of the day, default-browser question, privacy notice or what's-new. (The
// accessibility-tree and window-title checks of the same are in provider-docker's
// golden-desktop.test.ts.) Needs the debian-desktop golden.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { connect, leaseReady, machineBox, okCaller, type Session } from './harness.ts';

const box = machineBox('desktop-first-run', 'fr');
box.write({});
let s: Session | undefined;
const leases: string[] = [];
after(async () => { await box.end(s, leases); });

const APPS: { app: string; args: string[]; title: RegExp }[] = [
  { app: 'firefox-esr', args: [], title: /Mozilla Firefox/ },
  { app: 'libreoffice', args: ['--writer', '--norestore'], title: /LibreOffice Writer/ },
  { app: 'libreoffice', args: ['--calc', '--norestore'], title: /LibreOffice Calc/ },
  { app: 'mousepad', args: [], title: /Mousepad/ },
  { app: 'thunar', args: ['/home/user'], title: /Thunar|user/ },
];
const FIRST_RUN = ['Welcome', 'Tip of the Day', 'default browser', 'Privacy Notice', "What's New", 'Get started'];

describe('debian-desktop: no first-run dialog, by OCR', { timeout: 600_000 }, () => {
  it('each application shows its main window and no first-run words on the screen', async () => {
    s = await connect(box);
    const call = okCaller(s);
    const ok = async (name: string, args: Record<string, unknown>) => (await call(name, args)).structuredContent;
    const lease = (await leaseReady(s, { template: 'debian-desktop', ttl_seconds: 900 }, 120, (id) => leases.push(id))).lease_id;
    for (const { app, args, title } of APPS) {
      const launched = await ok('vm_launch', { lease_id: lease, app, args, wait_seconds: 20 });
      let win: any;
      for (let i = 0; i < 60 && !win; i++) {
        win = (await ok('vm_list_windows', { lease_id: lease })).windows.find((w: any) => title.test(w.title) && w.visible);
        if (!win) await new Promise((r) => setTimeout(r, 500));
      }
      assert.ok(win, `${app} ${args.join(' ')}: a main window titled like ${title} (launch said ${JSON.stringify(launched.window ?? null)})`);
      // Give a first-run dialog or tab the time to come up, then read the whole screen.
      await ok('vm_wait', { lease_id: lease, for: 'settle', settle_ms: 1500, timeout_seconds: 20 });
      for (const words of FIRST_RUN) {
        const found = (await ok('vm_find_text', { lease_id: lease, text: words })).matches;
        assert.deepEqual(found, [], `${app}: "${words}" is on the screen`);
      }
      assert.ok((await ok('vm_find_text', { lease_id: lease, text: win.title.split(' ')[0] })).matches.length > 0 || /Firefox/.test(win.title), `OCR reads the screen (${win.title})`);
      // A window that is already gone (CI saw Firefox's first window replaced between the list and
      // the close) is what the close wanted: NOT_FOUND is fine, any other error is not.
      const closed = await s.call('vm_close', { lease_id: lease, window: win.id });
      assert.ok(!closed.isError || closed.structuredContent.code === 'NOT_FOUND', `vm_close: ${JSON.stringify(closed.structuredContent)}`);
      for (let i = 0; i < 40; i++) {
        if (!(await ok('vm_list_windows', { lease_id: lease })).windows.some((w: any) => w.id === win.id)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  });
});
