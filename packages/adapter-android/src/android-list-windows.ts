/**
 * Windows: `dumpsys window windows` parsed (dumpsys-window.ts) into the visible windows plus the
 * activity windows of background tasks (`visible: false`, so focus can bring them back), the
 * focused one marked (mCurrentFocus). Hidden system windows (IME, wallpaper, overlays) are left
 * out. id = the WindowState's hash (stable while the window lives), title = its title
 * (`pkg/activity` for an activity), class = its package.
 */
import type { AdapterContext, WindowInfo } from '@vmhub/core';
import { parseWindowDump, type ParsedWindow, type WindowDump } from './dumpsys-window.ts';
import { androidError } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';

export interface Listed {
  dump: WindowDump;
  windows: (WindowInfo & { package: string })[];
}

export async function readWindows(rt: AndroidRuntime, ctx: AdapterContext): Promise<Listed> {
  const device = await rt.device(ctx);
  const res = await device.run(['dumpsys', 'window', 'windows'], { maxOutputBytes: 16 * 1024 * 1024 });
  const dump = parseWindowDump(res.stdout.toString('utf8'));
  const windows = dump.windows.filter((w) => !w.exiting && (w.visible || isActivity(w))).map((w) => toInfo(w, dump.focusedId));
  return { dump, windows };
}

/** An activity's window is titled `<its package>/<activity class>`. */
function isActivity(w: ParsedWindow): boolean {
  return w.package !== '' && w.title.startsWith(`${w.package}/`);
}

function toInfo(w: ParsedWindow, focusedId: string | undefined): WindowInfo & { package: string } {
  return { id: w.id, title: w.title, class: w.package, x: w.x, y: w.y, width: w.width, height: w.height, focused: w.id === focusedId, visible: w.visible, package: w.package };
}

export function publicWindow(w: WindowInfo & { package?: string }): WindowInfo {
  const { package: _pkg, ...info } = w;
  return info;
}

export async function listWindows(rt: AndroidRuntime, ctx: AdapterContext): Promise<WindowInfo[]> {
  return (await readWindows(rt, ctx)).windows.map(publicWindow);
}

/** A window by id, exact title, or package (its focused or only window). */
export function resolveWindow(windows: Listed['windows'], ref: string): Listed['windows'][number] {
  const byId = windows.find((w) => w.id === ref);
  if (byId) return byId;
  const best = (list: Listed['windows']) => list.find((w) => w.focused) ?? list.find((w) => w.visible) ?? list[0]!;
  const byTitle = windows.filter((w) => w.title === ref);
  if (byTitle.length) return best(byTitle);
  const byPackage = windows.filter((w) => w.package === ref);
  if (byPackage.length) return best(byPackage);
  const known = windows.map((w) => `${w.id} "${w.title}"`).join(', ') || 'none';
  throw androidError('NOT_FOUND', `no window has id, title or package ${JSON.stringify(ref)}; windows: ${known}`, { details: { window: ref } });
}
