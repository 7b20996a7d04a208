/**
 * List windows: System Events through osascript (in_guest_tools; needs Accessibility). Ids are
 * "<pid>:<index>" — System Events has no stable window id, and a process lists its windows
 * front to back, so an app's index can change when its windows are re-stacked.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { guestToolsOff, macError } from './errors.ts';
import { osaListWindows, type GuestWindow } from './in-guest.ts';
import type { MacosRuntime } from './runtime.ts';

export async function listWindows(rt: MacosRuntime, ctx: AdapterContext): Promise<WindowInfo[]> {
  if (!rt.options.in_guest_tools) throw guestToolsOff('list_windows');
  return (await osaListWindows(rt, ctx)).map(({ pid: _p, index: _i, ...w }) => w);
}

/** The window named by id or exact title; NOT_FOUND otherwise. */
export async function findWindow(rt: MacosRuntime, ctx: AdapterContext, window: string, capability: string): Promise<GuestWindow> {
  if (!rt.options.in_guest_tools) throw guestToolsOff(capability);
  const all = await osaListWindows(rt, ctx);
  const w = all.find((x) => x.id === window) ?? all.find((x) => x.title === window);
  if (!w) throw macError('NOT_FOUND', `no window "${window}" (by id or exact title): vm_list_windows lists the open ones`, { details: { window } });
  return w;
}
