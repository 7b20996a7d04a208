/**
 * What every capability function gets: the lease's options (instance options refined by the
 * template's adapter_options), what the session learned about the machine, and a way to reach
 * the guest. One runtime per lease session (x11-session.ts); it ends with the session.
 */
import type { AdapterContext } from '@vmhub/core';
import { openGuest, type Guest } from './guest.ts';
import type { X11Options } from './options.ts';
import { SessionFacts } from './session-facts.ts';
import { FrameBuffers } from './x11-framebuffer.ts';
import { XTestInput } from './x11-xtest-input.ts';

export interface X11Runtime {
  readonly options: X11Options;
  readonly facts: SessionFacts;
  /** Read buffers for screenshots from the host framebuffer, reused across calls. */
  readonly frameBuffers: FrameBuffers;
  /** The session's resident XTEST connection, when the provider shares the X socket. */
  readonly xtest: XTestInput;
  /** A Guest for one call: the lease's channel with that call's signal. */
  guest(ctx: AdapterContext): Promise<Guest>;
}

export function createRuntime(options: X11Options): X11Runtime {
  return { options, facts: new SessionFacts(), frameBuffers: new FrameBuffers(), xtest: new XTestInput(), guest: (ctx) => openGuest(ctx, options) };
}
