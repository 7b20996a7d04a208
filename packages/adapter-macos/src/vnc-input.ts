/**
 * Input over RFB, shared by the input capabilities: keys held for a chord or a click are always
 * released (also when the call is cancelled half-way). RFB input has no acknowledgement, so each
 * action ends with a full-screen update request and waits (up to settle_ms) for its answer: the
 * server reads a client's messages in order, so by then it has applied the input, and the agent's
 * next look (or the next action) comes after it.
 */
import type { AdapterContext } from '@vmhub/core';
import type { RfbClient } from '@vmhub/rfb';
import { cancelled } from './errors.ts';
import { COMMAND_KEYSYMS, SHIFT_L, type Modifier } from './keys.ts';
import type { MacosRuntime } from './runtime.ts';

export async function withRfb<R>(rt: MacosRuntime, fn: (rfb: RfbClient) => Promise<R>): Promise<R> {
  const rfb = await rt.vnc.client();
  try {
    return await fn(rfb);
  } finally {
    rt.vnc.lastInputAt = Date.now();
    if (rt.options.settle_ms > 0 && !rfb.closed) await rfb.screenshot({ fresh: true, timeoutMs: rt.options.settle_ms }).catch(() => undefined);
  }
}

export function modifierKeysym(rt: MacosRuntime, m: Modifier): number {
  switch (m) {
    case 'cmd': return COMMAND_KEYSYMS[rt.options.command_keysym];
    case 'shift': return SHIFT_L;
    case 'option': return 0xffe9;
    case 'ctrl': return 0xffe3;
  }
}

/** Press `held` in order, run `fn`, release them in reverse — whatever `fn` did. */
export async function holding<R>(rfb: RfbClient, held: number[], fn: () => Promise<R>): Promise<R> {
  const down: number[] = [];
  try {
    for (const k of held) { await rfb.keyDown(k); down.push(k); }
    return await fn();
  } finally {
    for (const k of down.reverse()) await rfb.keyUp(k).catch(() => undefined);
  }
}

export function checkSignal(ctx: AdapterContext, what: string): void {
  if (ctx.signal.aborted) throw cancelled(what);
}

export const sleep = (ms: number) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

/** core's modifier names → the Mac's. */
export function macModifiers(mods: readonly string[]): Modifier[] {
  return mods.map((m) => (m === 'super' ? 'cmd' : m === 'alt' ? 'option' : m) as Modifier);
}
