/**
 * Screen size as screencap shows it: `wm size` (Override beats Physical; natural orientation)
 * turned by the rotation in `dumpsys input`. One device command, kept for the session; a
 * screenshot of another size replaces it (android-screenshot.ts).
 */
import type { AdapterContext } from '@vmhub/core';
import { androidError } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';
import { currentSize, parseRotation, parseWmSize, type Size } from './screen-parse.ts';

const SIZE_SCRIPT = `wm size; dumpsys input 2>/dev/null | grep -E 'Viewport INTERNAL|SurfaceOrientation'; exit 0`;

export function screenSize(rt: AndroidRuntime, ctx: AdapterContext): Promise<Size> {
  return rt.facts.remember('screen', async () => {
    const device = await rt.device(ctx);
    const res = await device.sh(SIZE_SCRIPT, [], { label: 'wm size' });
    const text = res.stdout.toString('utf8');
    const { effective } = parseWmSize(text);
    if (!effective) throw androidError('INTERNAL', `wm size did not print "Physical size: WxH" (got ${JSON.stringify(text.slice(0, 200))}${res.stderr.length ? `, stderr ${JSON.stringify(res.stderr.toString('utf8').slice(0, 200))}` : ''})`);
    return currentSize(effective, parseRotation(text));
  });
}
