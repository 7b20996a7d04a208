/**
 * vm_click {window, x, y}: a point in a window's client coordinates → screen pixels. The window
 * is named as vm_focus names it (id or exact title, router's pickWindow rule); its client area
 * comes from the adapter's listWindows (screen pixels, without the WM's frame: adapter-x11 reads
 * xwininfo's absolute upper-left corner). A point outside the client area is refused, not clamped.
 */
import type { AdapterContext, AdapterSession, Point } from '../adapter.ts';
import { adapterErrors } from '../adapter-kit/errors.ts';
import { pickWindow } from '../adapter-kit/windows.ts';
import { VmhubError } from '../errors.ts';

const errors = adapterErrors('router');

/** Same id: equal ignoring case, or the same number written 0x… or in decimal (X11 ids). */
function sameId(id: string, ref: string): boolean {
  if (id.toLowerCase() === ref.toLowerCase()) return true;
  const num = (s: string) => (/^0x[0-9a-f]{1,8}$/i.test(s) ? Number.parseInt(s.slice(2), 16) : /^[0-9]{1,10}$/.test(s) ? Number(s) : undefined);
  const a = num(id);
  return a !== undefined && a === num(ref);
}

/**
 * The screen point of (`point.x`, `point.y`) inside `window`'s client area. NOT_FOUND for an
 * unknown window, INVALID_REQUEST for an ambiguous title or a point off the client area,
 * CAPABILITY_UNAVAILABLE when the adapter cannot list windows.
 */
export async function windowPoint(session: Pick<AdapterSession, 'listWindows'>, ctx: AdapterContext, window: string, point: Point): Promise<Point & { window: string }> {
  if (!session.listWindows) throw new VmhubError('CAPABILITY_UNAVAILABLE', 'vm_click {window}: this adapter cannot list windows (no "list_windows"), so window coordinates cannot be mapped; click screenshot coordinates instead');
  const w = pickWindow(await session.listWindows(ctx), window, errors, (c, ref) => sameId(c.id, ref));
  if (!(point.x >= 0 && point.y >= 0 && point.x < w.width && point.y < w.height)) {
    throw new VmhubError('INVALID_REQUEST', `vm_click: (${point.x}, ${point.y}) is outside window ${w.id}'s client area (${w.width}×${w.height}); x must be in 0..${w.width - 1} and y in 0..${w.height - 1}`, { details: { window: w.id, width: w.width, height: w.height } });
  }
  return { x: Math.round(w.x + point.x), y: Math.round(w.y + point.y), window: w.id };
}
