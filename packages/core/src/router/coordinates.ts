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
    return { x: Math.floor(point.x), y: Math.floor(point.y) };
  }
  return assertOnScreen(point, size, field);
}
