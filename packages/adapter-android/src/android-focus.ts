/**
 * Focus: bring the window's app to the front — `am start` with the launcher intent for an
 * activity window (`pkg/activity`; an existing task comes forward), the package's launcher
 * through monkey otherwise — then wait (up to 3 s) until mCurrentFocus is that package.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { androidError } from './errors.ts';
import { publicWindow, readWindows, resolveWindow } from './android-list-windows.ts';
import type { AndroidRuntime } from './runtime.ts';
import { startComponent } from './android-launch.ts';
import { SYSTEM } from './android-close.ts';

const SETTLE_MS = 3000;

export async function focus(rt: AndroidRuntime, ctx: AdapterContext, input: { window: string }): Promise<WindowInfo> {
  const target = resolveWindow((await readWindows(rt, ctx)).windows, input.window);
  if (!target.package || SYSTEM.has(target.package)) {
    throw androidError('INVALID_REQUEST', `window ${target.id} "${target.title}" is part of the system UI (${target.package || 'no package'}): only app windows can be brought to the front`);
  }
  const device = await rt.device(ctx);
  if (target.title.startsWith(`${target.package}/`)) {
    await startComponent(device, target.title, ['-a', 'android.intent.action.MAIN', '-c', 'android.intent.category.LAUNCHER'], false);
  } else {
    await device.run(['monkey', '-p', target.package, '-c', 'android.intent.category.LAUNCHER', '1'], { label: 'monkey' });
  }
  const end = Date.now() + SETTLE_MS;
  for (;;) {
    const now = (await readWindows(rt, ctx)).windows;
    const same = now.find((w) => w.id === target.id) ?? now.find((w) => w.package === target.package && w.focused);
    if ((same?.focused ?? false) || Date.now() > end) return publicWindow(same ?? { ...target, focused: false });
    await new Promise((r) => setTimeout(r, 150));
  }
}
