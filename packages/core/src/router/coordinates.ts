/**
 * Coordinate spaces. Input tools take image coordinates of the lease's latest screenshot by
 * default, so an agent can click where it saw something in a downscaled image; core maps them to
 * screen pixels. Points off the image or off the screen are rejected, never clamped. The mapping
 * lives on the lease's session (ScreenState), so it ends with the lease.
 */
import type { AdapterContext, OpenSession } from '../adapter.ts';
import { VmhubError } from '../errors.ts';
import { assertOnScreen, imageToScreen } from '../screen-mapping.ts';
import type { ScreenState } from './types.ts';

export async function toScreen(screen: ScreenState, session: OpenSession, ctx: AdapterContext, point: { x: number; y: number }, space: 'image' | 'screen' | undefined, field: string): Promise<{ x: number; y: number }> {
  const mapping = screen.latest;
  if ((space ?? 'image') === 'image' && mapping) return imageToScreen(point, mapping, field);
  const size = mapping?.screen ?? (session.screenSize ? await session.screenSize(ctx) : undefined);
  if (!size) {
    if (space === 'image') throw new VmhubError('INVALID_REQUEST', `${field}: no screenshot taken yet on this lease, so image coordinates cannot be mapped; call vm_screenshot first or pass coordinate_space "screen"`);
    // The screen size is unknown here, but no screen has negative pixels.
    if (point.x < 0 || point.y < 0) throw new VmhubError('INVALID_REQUEST', `${field} (${point.x}, ${point.y}) is off the screen: screen coordinates start at 0`);
    return { x: Math.floor(point.x), y: Math.floor(point.y) };
  }
  return assertOnScreen(point, size, field);
}

/** A screen-pixel region checked before anything runs: not negative, and on the screen when its size is known. */
export async function checkRegion(screen: ScreenState, session: OpenSession, ctx: AdapterContext, region: { x: number; y: number; width: number; height: number }, field = 'region'): Promise<void> {
  const size = screen.latest?.screen ?? (session.screenSize ? await session.screenSize(ctx) : undefined);
  if (region.x < 0 || region.y < 0 || (size && (region.x + region.width > size.width || region.y + region.height > size.height))) {
    throw new VmhubError('INVALID_REQUEST', `${field} ${region.width}x${region.height}+${region.x}+${region.y} is ${size ? `outside the ${size.width}x${size.height} screen` : 'off the screen: screen coordinates start at 0'}`);
  }
}
