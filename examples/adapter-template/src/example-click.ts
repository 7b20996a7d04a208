/**
 * click: one xdotool command — move, hold the modifiers, click, release them — so a click costs
 * one guest round trip. x and y are already screen pixels inside the screen: core mapped them
 * from the agent's screenshot and refused off-screen points. Do not check or clamp them again.
 */
import type { AdapterContext, Modifier, MouseButton, Point } from '@vmhub/core';
import type { ExampleRuntime } from './runtime.ts';

const BUTTON: Record<MouseButton, string> = { left: '1', middle: '2', right: '3' };

export async function exampleClick(rt: ExampleRuntime, ctx: AdapterContext, input: Point & { button: MouseButton; count: number; modifiers: Modifier[] }): Promise<void> {
  // xdotool knows ctrl, shift, alt and super by these names, the only ones core's schema allows.
  const mods = [...new Set(input.modifiers)];
  await (await rt.guest(ctx)).run([
    'xdotool', 'mousemove', String(input.x), String(input.y),
    ...mods.flatMap((m) => ['keydown', m]),
    'click', '--repeat', String(input.count), BUTTON[input.button],
    ...mods.reverse().flatMap((m) => ['keyup', m]),
  ]);
}
