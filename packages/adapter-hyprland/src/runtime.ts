/**
 * What every capability function gets: the lease's options, what the session learned, and ways
 * to reach the guest — with the session's Wayland environment (found once, desktop.ts) and the
 * compositor behind one interface (compositor.ts). One runtime per lease session (adapter.ts).
 */
import { randomBytes } from 'node:crypto';
import type { AdapterContext } from '@vmhub/core';
import { Facts, type KitSession } from '@vmhub/core/adapter-kit';
import type { CaptureState } from './capture.ts';
import { compositorFor, type Compositor } from './compositor.ts';
import { discoverDesktop, type Desktop } from './desktop.ts';
import { openGuest, type Guest } from './guest.ts';
import { makeLayout, type Layout } from './layout.ts';
import type { HyprlandOptions } from './options.ts';
import type { ProbeFacts } from './probe.ts';

export interface HyprFacts {
  desktop: Desktop;
  /** The layout of the latest screenshot. */
  layout: Layout;
  probe: ProbeFacts;
}

export interface HyprRuntime {
  readonly options: HyprlandOptions;
  readonly facts: Facts<HyprFacts>;
  /** Names this session's pointer holder and keyboard helper in the guest (vpointer.ts, vkeyboard.ts). */
  readonly holderId: string;
  /** Whether an input action ran, so dispose stops the holder or helper it may have started. */
  holderStarted: boolean;
  /** Whether the session's keyboard helper was started (vkeyboard.ts reclaimKeyboard). */
  keyboardStarted: boolean;
  /** The session's screen capture helper, reached through the shared framebuffer (capture.ts). */
  capture: CaptureState;
  desktop(ctx: AdapterContext): Promise<Desktop>;
  /** A Guest for one call: the lease's channel, that call's signal, the session's env. */
  guest(ctx: AdapterContext): Promise<Guest>;
  compositor(ctx: AdapterContext): Promise<Compositor>;
  /** The layout the latest screenshot was taken with (or a fresh one before any). */
  layout(ctx: AdapterContext): Promise<Layout>;
  /** Read the layout now and keep it. */
  refreshLayout(ctx: AdapterContext): Promise<Layout>;
}

/** A lease's session: the contract's methods and the runtime verbs (hyprland-dispatch.ts) run with. */
export type HyprlandSession = KitSession<HyprRuntime>;

export function createRuntime(options: HyprlandOptions): HyprRuntime {
  const facts = new Facts<HyprFacts>();
  // Shared by concurrent calls: another call's cancellation is not this call's failure.
  const desktop = (ctx: AdapterContext) => facts.remember('desktop', () => discoverDesktop(ctx, options), ctx.signal);
  const guest = async (ctx: AdapterContext) => openGuest(ctx, options, (await desktop(ctx)).env);
  const compositor = async (ctx: AdapterContext) => compositorFor(await desktop(ctx));
  const readLayout = async (ctx: AdapterContext) => makeLayout(await (await compositor(ctx)).outputs(await guest(ctx)), options.output);
  return {
    options, facts, desktop, guest, compositor,
    holderId: randomBytes(6).toString('hex'),
    holderStarted: false,
    keyboardStarted: false,
    capture: {},
    layout: (ctx) => facts.remember('layout', () => readLayout(ctx)),
    async refreshLayout(ctx) {
      const layout = await readLayout(ctx);
      facts.set('layout', layout);
      return layout;
    },
  };
}
