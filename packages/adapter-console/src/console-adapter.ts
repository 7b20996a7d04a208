/**
 * The console adapter's methods: hypervisor-level screen, keyboard and pointer through the
 * provider's ConsoleHandle (QMP), plus files/exec/clone through the GuestChannel when the
 * template has one. Per-lease state is only the last known screen size.
 */
import { assertOnScreen, type AdapterContext, type AdapterMethods, type Capability, type RawScreen } from '@vmhub/core';
import { click, drag, scroll, type Screen } from './console-pointer.ts';
import { sendStrokes } from './console-keyboard.ts';
import { cloneRepo, exec, getFile, guestChannel, NO_CHANNEL_REASON, putFile } from './console-guest.ts';
import { parseKeys, textStrokes } from './keymap.ts';
import type { ConsoleAdapterOptions } from './options.ts';

export function createConsoleAdapterMethods(options: ConsoleAdapterOptions): AdapterMethods {
  const envDelay = Number(process.env.VMHUB_CONSOLE_KEY_DELAY_MS);
  const keyDelay = options.keyDelayMs ?? (Number.isFinite(envDelay) && envDelay >= 0 ? envDelay : 20);
  const pointerDelay = options.pointerDelayMs ?? 15;
  const dragSteps = options.dragSteps ?? 10;
  const maxArchiveBytes = options.maxArchiveBytes ?? 256 * 1024 * 1024;
  const screens = new Map<string, Screen>();

  const screenshot = async (ctx: AdapterContext): Promise<RawScreen> => {
    const raw = await (await ctx.console()).screendump();
    screens.set(ctx.lease_id, { width: raw.width, height: raw.height });
    return raw;
  };
  const screenSize = async (ctx: AdapterContext): Promise<Screen> => {
    const known = screens.get(ctx.lease_id);
    if (known) return known;
    const raw = await screenshot(ctx);
    return { width: raw.width, height: raw.height };
  };
  // Resolution changes (text mode → graphics) are caught by checking against a fresh frame when
  // a point falls outside the cached size.
  const onScreen = async (ctx: AdapterContext, p: { x: number; y: number }, field: string): Promise<{ screen: Screen; point: { x: number; y: number } }> => {
    let screen = await screenSize(ctx);
    if (p.x >= screen.width || p.y >= screen.height) {
      screens.delete(ctx.lease_id);
      screen = await screenSize(ctx);
    }
    return { screen, point: assertOnScreen(p, screen, field) };
  };

  return {
    screenshot,
    screenSize,
    async type(ctx, input) {
      const strokes = textStrokes(input.text);
      await sendStrokes(await ctx.console(), strokes, keyDelay, ctx.signal);
    },
    async key(ctx, input) {
      const strokes = parseKeys(input.keys);
      await sendStrokes(await ctx.console(), strokes, keyDelay, ctx.signal);
    },
    async click(ctx, input) {
      const { screen, point } = await onScreen(ctx, input, 'point');
      await click(await ctx.console(), point, screen, input.button, input.count, input.modifiers, pointerDelay);
    },
    async drag(ctx, input) {
      const a = await onScreen(ctx, input.from, 'from');
      const b = await onScreen(ctx, input.to, 'to');
      await drag(await ctx.console(), a.point, b.point, b.screen, input.button, dragSteps, pointerDelay);
    },
    async scroll(ctx, input) {
      const { screen, point } = await onScreen(ctx, input, 'point');
      await scroll(await ctx.console(), point, screen, input.direction, input.amount, pointerDelay);
    },
    putFile,
    getFile,
    exec,
    cloneRepo: (ctx, input) => cloneRepo(ctx, input, maxArchiveBytes),
    async probe(ctx) {
      const missing: Partial<Record<Capability, string>> = {};
      try {
        await guestChannel(ctx);
      } catch (err) {
        const reason = err instanceof Error ? err.message : NO_CHANNEL_REASON;
        for (const cap of ['put_file', 'get_file', 'exec', 'clone_repo'] as const) missing[cap] = reason;
      }
      return missing;
    },
    async release(leaseId) {
      screens.delete(leaseId);
    },
  };
}
