/**
 * What every capability function gets: the lease's options, what the session learned, and ways
 * to reach the guest — with the session's Wayland environment (found once, desktop.ts) and the
 * compositor behind one interface (compositor.ts).
 */
import type { AdapterContext } from '@vmhub/core';
import { compositorFor, type Compositor } from './compositor.ts';
import { discoverDesktop, type Desktop } from './desktop.ts';
import { isCancellation } from './errors.ts';
import { openGuest, type Guest } from './guest.ts';
import { makeLayout, type Layout } from './layout.ts';
import type { HyprlandOptions } from './options.ts';
import { SessionFacts } from './session-facts.ts';

export interface HyprRuntime {
  readonly options: HyprlandOptions;
  readonly facts: SessionFacts;
  desktop(ctx: AdapterContext): Promise<Desktop>;
  /** A Guest for one call: the lease's channel, that call's signal, the session's env. */
  guest(ctx: AdapterContext): Promise<Guest>;
  compositor(ctx: AdapterContext): Promise<Compositor>;
  /** The layout the latest screenshot was taken with (or a fresh one before any). */
  layout(ctx: AdapterContext): Promise<Layout>;
  /** Read the layout now and keep it. */
  refreshLayout(ctx: AdapterContext): Promise<Layout>;
}

export function createRuntime(options: HyprlandOptions): HyprRuntime {
  const facts = new SessionFacts();
  const desktop = async (ctx: AdapterContext): Promise<Desktop> => {
    const load = () => facts.remember('desktop', () => discoverDesktop(ctx, options));
    try {
      return await load();
    } catch (err) {
      // Shared by concurrent calls: another call's cancellation is not this call's failure.
      if (isCancellation(err) && !ctx.signal.aborted) return load();
      throw err;
    }
  };
  const guest = async (ctx: AdapterContext) => openGuest(ctx, options, (await desktop(ctx)).env);
  const compositor = async (ctx: AdapterContext) => compositorFor(await desktop(ctx));
  const readLayout = async (ctx: AdapterContext) => makeLayout(await (await compositor(ctx)).outputs(await guest(ctx)), options.output);
  return {
    options, facts, desktop, guest, compositor,
    layout: (ctx) => facts.remember('layout', () => readLayout(ctx)),
    async refreshLayout(ctx) {
      const layout = await readLayout(ctx);
      facts.set('layout', layout);
      return layout;
    },
  };
}
