/**
 * What every capability function gets: the lease's options, what the session learned about the
 * device (screen size, which tools it has), and a way to reach it. One runtime per lease session
 * (adapter.ts); it ends with the session, so nothing is keyed by lease id.
 */
import type { AdapterContext } from '@vmhub/core';
import { Facts, type KitSession } from '@vmhub/core/adapter-kit';
import { openDevice, type Device } from './guest.ts';
import type { AndroidOptions } from './options.ts';
import type { ProbeFacts } from './probe.ts';
import type { Size } from './screen-parse.ts';

export interface AndroidFacts {
  screen: Size;
  probe: ProbeFacts;
}

export interface AndroidRuntime {
  readonly options: AndroidOptions;
  readonly facts: Facts<AndroidFacts>;
  device(ctx: AdapterContext): Promise<Device>;
}

/** A lease's session: the contract's methods and its runtime. */
export type AndroidSession = KitSession<AndroidRuntime>;

export function createRuntime(options: AndroidOptions): AndroidRuntime {
  return { options, facts: new Facts(), device: (ctx) => openDevice(ctx, options) };
}
