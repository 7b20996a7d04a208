/** click: move the tablet, hold modifiers, press/release the button `count` times, release modifiers. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdapterContext, Modifier, MouseButton, Point } from '@vmhub/core';
import { buttonEvent, modifierEvents, moveEvents } from './input.ts';
import { screenSize } from './console-screen-size.ts';
import type { ConsoleState } from './runtime.ts';

const MOD_QCODE: Record<Modifier, string> = { ctrl: 'ctrl', shift: 'shift', alt: 'alt', super: 'meta_l' };

/** `input` is in screen pixels inside the screen (core checked). */
export async function click(s: ConsoleState, ctx: AdapterContext, input: Point & { button: MouseButton; count: number; modifiers: Modifier[] }): Promise<void> {
  const screen = await screenSize(s, ctx);
  const con = await ctx.console();
  const mods = input.modifiers.map((m) => MOD_QCODE[m]);
  await con.execute('input-send-event', { events: moveEvents(input, screen) });
  await sleep(s.pointerDelayMs);
  await modifierEvents(con, mods, true);
  try {
    for (let i = 0; i < input.count; i++) {
      await con.execute('input-send-event', { events: [buttonEvent(input.button, true)] });
      await sleep(s.pointerDelayMs);
      await con.execute('input-send-event', { events: [buttonEvent(input.button, false)] });
      await sleep(s.pointerDelayMs);
    }
  } finally {
    await modifierEvents(con, mods, false);
  }
}
