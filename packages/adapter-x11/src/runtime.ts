/**
 * What every capability function gets: the validated options, the per-lease cache and a way to
 * reach the guest. One runtime per adapter instance (createX11Adapter).
 */
import type { AdapterContext } from '@vmhub/core';
import { openGuest, type Guest } from './guest.ts';
import { LeaseCache } from './lease-cache.ts';
import type { X11Options } from './options.ts';

export interface X11Runtime {
  options: X11Options;
  cache: LeaseCache;
  guest(ctx: AdapterContext): Promise<Guest>;
}

export function createRuntime(options: X11Options, cache = new LeaseCache()): X11Runtime {
  return { options, cache, guest: (ctx) => openGuest(ctx, options) };
}
