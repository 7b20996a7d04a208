/**
 * Scroll: a swipe the opposite way (scrolling down moves the finger up), starting at the point.
 * Distance = amount × scroll_step_percent (default 10 %) of the screen's height (up/down) or
 * width (left/right), stopped 1 px inside the screen edge; one swipe of scroll_ms (300 ms).
 */
import type { AdapterContext } from '@vmhub/core';
import type { AndroidRuntime } from './runtime.ts';
import { screenSize } from './android-screen-size.ts';

export function scrollSwipe(from: { x: number; y: number }, direction: 'up' | 'down' | 'left' | 'right', amount: number, screen: { width: number; height: number }, stepPercent: number): [number, number, number, number] {
  const x = Math.round(from.x);
  const y = Math.round(from.y);
  const clampX = (v: number): number => Math.min(screen.width - 1, Math.max(1, Math.round(v)));
  const clampY = (v: number): number => Math.min(screen.height - 1, Math.max(1, Math.round(v)));
  const dy = (screen.height * stepPercent * amount) / 100;
  const dx = (screen.width * stepPercent * amount) / 100;
  switch (direction) {
    case 'down': return [x, y, x, clampY(y - dy)];
    case 'up': return [x, y, x, clampY(y + dy)];
    case 'right': return [x, y, clampX(x - dx), y];
    case 'left': return [x, y, clampX(x + dx), y];
  }
}

export async function scroll(rt: AndroidRuntime, ctx: AdapterContext, input: { x: number; y: number; direction: 'up' | 'down' | 'left' | 'right'; amount: number }): Promise<void> {
  const screen = await screenSize(rt, ctx);
  const swipe = scrollSwipe(input, input.direction, input.amount, screen, rt.options.scroll_step_percent);
  const device = await rt.device(ctx);
  await device.run(['input', 'swipe', ...swipe.map(String), String(rt.options.scroll_ms)]);
}
