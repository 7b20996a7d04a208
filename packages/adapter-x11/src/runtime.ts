/**
 * What every capability function gets: the lease's options (instance options refined by the
 * template's adapter_options), what the session learned about the machine, and a way to reach
 * the guest. One runtime per lease session (adapter.ts); it ends with the session. Facts save a
 * hot action its second guest command: the screen size, which tools the golden has, the host
 * framebuffer; a fact that turns out wrong (a resized screen) is forgotten and learned again.
 */
import type { AdapterContext, FramebufferSource } from '@vmhub/core';
import { Facts, FrameBuffers, type KitSession } from '@vmhub/core/adapter-kit';
import { openX11Guest, type Guest } from './guest.ts';
import type { X11Options } from './options.ts';
import type { ProbeFacts } from './probe.ts';
import type { Size } from './x11-screen-size.ts';
import type { Bindings } from './x11-type.ts';
import { XTestInput } from './xtest-input.ts';

export interface X11Facts {
  screen: Size;
  probe: ProbeFacts;
  /** The provider's host framebuffer file (framebuffer.ts), asked once. */
  framebuffer: FramebufferSource | undefined;
}

export interface X11Runtime {
  readonly options: X11Options;
  readonly facts: Facts<X11Facts>;
  /** Characters vm_type left bound to spare keycodes (see x11-type.ts). */
  readonly bindings: Bindings;
  /** Read buffers for screenshots from the host framebuffer, reused across calls. */
  readonly frameBuffers: FrameBuffers;
  /** The session's resident XTEST connection, when the provider shares the X socket. */
  readonly xtest: XTestInput;
  /** Keys vm_key {action: "down"} holds: keysym name → keycodes pressed through XTEST ([] through xdotool). */
  readonly held: Map<string, number[]>;
  /** A Guest for one call: the lease's channel with that call's signal. */
  guest(ctx: AdapterContext): Promise<Guest>;
}

/** A lease's session: the contract's methods and the runtime verbs (x11-dispatch.ts) run with. */
export type X11Session = KitSession<X11Runtime>;

export function createRuntime(options: X11Options): X11Runtime {
  return { options, facts: new Facts(), bindings: { byChar: new Map() }, held: new Map(), frameBuffers: new FrameBuffers(), xtest: new XTestInput(), guest: (ctx) => openX11Guest(ctx, options) };
}
