/** Close: `am force-stop <package>` of the window's app (Android has no per-window close request). */
import type { AdapterContext } from '@vmhub/core';
import { androidError } from './errors.ts';
import { readWindows, resolveWindow } from './android-list-windows.ts';
import type { AndroidRuntime } from './runtime.ts';

/** Stopping these would take the system UI down with the window. */
export const SYSTEM = new Set(['android', 'com.android.systemui']);

export async function close(rt: AndroidRuntime, ctx: AdapterContext, input: { window: string }): Promise<{ window_id: string }> {
  const target = resolveWindow((await readWindows(rt, ctx)).windows, input.window);
  if (!target.package || SYSTEM.has(target.package)) {
    throw androidError('INVALID_REQUEST', `window ${target.id} "${target.title}" is part of the system UI (${target.package || 'no package'}): it cannot be closed; press "back" or "home" with vm_key`);
  }
  const device = await rt.device(ctx);
  await device.run(['am', 'force-stop', target.package]);
  return { window_id: target.id };
}
