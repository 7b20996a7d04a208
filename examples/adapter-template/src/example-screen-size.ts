/**
 * screenSize (optional): the screen's size for core's bounds checks before the lease's first
 * screenshot — `xdotool getdisplaygeometry`, remembered; the latest screenshot's size wins.
 */
import type { AdapterContext } from '@vmhub/core';
import type { ExampleRuntime } from './runtime.ts';

export function exampleScreenSize(rt: ExampleRuntime, ctx: AdapterContext): Promise<{ width: number; height: number }> {
  return rt.facts.remember('screen', async () => {
    const { stdout } = await (await rt.guest(ctx)).run(['xdotool', 'getdisplaygeometry']);
    const [width = 0, height = 0] = stdout.toString('utf8').trim().split(/\s+/).map(Number);
    return { width, height };
  }, ctx.signal);
}
