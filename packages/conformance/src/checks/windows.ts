/** list_windows, launch, focus, close. */
import type { WindowInfo } from '@vmhub/core';
import { check, expectError, expectOk } from '../expect.ts';
import type { CheckTable, SuiteEnv } from './env.ts';

async function listWindows(env: SuiteEnv): Promise<WindowInfo[]> {
  return expectOk(await env.conn.call('vm_list_windows', {}), 'vm_list_windows', 'listWindows() must return WindowInfo[]').windows as WindowInfo[];
}

/** A window to act on: the one launch opened, else any visible one listed. */
async function someWindow(env: SuiteEnv): Promise<WindowInfo | undefined> {
  if (env.launched) return env.launched;
  if (!env.declared('list_windows')) return undefined;
  return (await listWindows(env)).find((w) => w.visible);
}

async function poll<T>(probe: () => Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

export const WINDOW_CHECKS: CheckTable = {
  list_windows: [
    {
      name: 'lists windows with screen geometry and at most one focused',
      async run(env, t) {
        const windows = await listWindows(env);
        check(Array.isArray(windows), 'vm_list_windows returned no windows array', 'return an array (empty when no window is open)');
        check(windows.filter((w) => w.focused).length <= 1, `${windows.filter((w) => w.focused).length} windows claim focus`, 'set focused only on the window holding input focus');
        for (const w of windows) {
          check(w.id.length > 0, `a window has an empty id (title "${w.title}")`, 'give every window a stable id agents can pass to vm_focus/vm_close');
          check(w.width >= 0 && w.height >= 0, `window ${w.id} has a negative size`, 'report geometry in screen pixels');
        }
        t.diagnostic(`${windows.length} windows`);
      },
    },
  ],
  launch: [
    {
      name: 'launches an app and reports (or lists) its window',
      async run(env, t) {
        if (!env.launchApp) { t.skip('no launchApp given to runAdapterConformance: pass an app the target has (e.g. "xterm")'); return; }
        const before = env.declared('list_windows') ? new Set((await listWindows(env)).map((w) => w.id)) : new Set<string>();
        const s = expectOk(await env.conn.call('vm_launch', { app: env.launchApp, wait_seconds: 10 }), `vm_launch {app: "${env.launchApp}"}`, 'launch() must start the app (argv, no shell) and resolve once it runs');
        let window = s.window as WindowInfo | undefined;
        if (!window && env.declared('list_windows')) window = await poll(async () => (await listWindows(env)).find((w) => !before.has(w.id)), 10_000);
        check(window, `no window appeared within 10 s of launching ${env.launchApp}`, 'wait (up to wait_seconds) for the app\'s window and return it, or pick a launchApp that opens a window');
        env.launched = window;
      },
    },
  ],
  focus: [
    {
      name: 'focuses a window (list_windows then shows it focused)',
      async run(env, t) {
        const w = await someWindow(env);
        if (!w) { t.skip('no window to focus: give launchApp, or declare list_windows on a target with a window open'); return; }
        const s = expectOk(await env.conn.call('vm_focus', { window: w.id }), `vm_focus {window: "${w.id}"}`, 'focus() must raise and focus the window named by id or exact title, and return it');
        check((s.window as WindowInfo).id === w.id, `vm_focus returned window ${(s.window as WindowInfo).id}, asked for ${w.id}`, 'return the window you focused');
        if (env.declared('list_windows')) {
          const focused = await poll(async () => (await listWindows(env)).find((x) => x.id === w.id && x.focused), 5000);
          check(focused, `window ${w.id} is not focused in vm_list_windows 5 s after vm_focus`, 'make focus() wait until the window manager reports the focus change');
        }
      },
    },
    {
      name: 'a window that does not exist answers NOT_FOUND',
      async run(env) {
        expectError(await env.conn.call('vm_focus', { window: 'vmhub-conformance-no-such-window' }), 'NOT_FOUND', 'vm_focus of a missing window', 'throw new VmhubError("NOT_FOUND", ...) naming the window when no id or title matches');
      },
    },
  ],
  close: [
    {
      name: 'closes the launched window (gone from list_windows)',
      async run(env, t) {
        if (!env.launched) { t.skip('no window launched by this suite (give launchApp and declare launch): the suite only closes windows it opened'); return; }
        const id = env.launched.id;
        const s = expectOk(await env.conn.call('vm_close', { window: id }), `vm_close {window: "${id}"}`, 'close() must ask the window to close and return {window_id}');
        check(s.window_id === id, `vm_close returned window_id ${String(s.window_id)}, asked for ${id}`, 'return the id of the window closed');
        if (env.declared('list_windows')) {
          const gone = await poll(async () => ((await listWindows(env)).some((w) => w.id === id) ? undefined : true), 10_000);
          check(gone, `window ${id} is still listed 10 s after vm_close`, 'close the window (WM_DELETE_WINDOW or equivalent), and have list_windows stop reporting it');
        }
        env.launched = undefined;
      },
    },
  ],
};
