/**
 * Coordinate spaces. Input tools take image coordinates of the lease's latest screenshot by
 * default, so an agent can click where it saw something in a downscaled image; core maps them to
 * screen pixels. Points off the image or off the screen are rejected, never clamped.
 */
import type { Adapter, AdapterContext } from '../adapter.ts';
import { VmhubError } from '../errors.ts';
import { assertOnScreen, imageToScreen, type ScreenMapping } from '../screenshot.ts';

export class CoordinateMapper {
  readonly #latest = new Map<string, ScreenMapping>();

  remember(leaseId: string, mapping: ScreenMapping): void {
    this.#latest.set(leaseId, mapping);
  }

  forget(leaseId: string): void {
    this.#latest.delete(leaseId);
  }

  async toScreen(adapter: Adapter, ctx: AdapterContext, point: { x: number; y: number }, space: 'image' | 'screen' | undefined, field: string): Promise<{ x: number; y: number }> {
    const mapping = this.#latest.get(ctx.lease_id);
    if ((space ?? 'image') === 'image' && mapping) return imageToScreen(point, mapping, field);
    const screen = mapping?.screen ?? (adapter.screenSize ? await adapter.screenSize(ctx) : undefined);
    if (!screen) {
      if (space === 'image') throw new VmhubError('INVALID_REQUEST', `${field}: no screenshot taken yet on this lease, so image coordinates cannot be mapped; call vm_screenshot first or pass coordinate_space "screen"`);
      return { x: Math.floor(point.x), y: Math.floor(point.y) };
    }
    return assertOnScreen(point, screen, field);
  }
}
