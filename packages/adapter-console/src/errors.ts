/**
 * The adapter's error helpers (the kit's, named for this adapter). A cancelled call (ctx.signal
 * aborted: the agent cancelled it or its deadline passed) stops at the next step and says so as
 * TIMEOUT. The router has already answered the client by then; this only ends the call's
 * remaining work.
 */
import { adapterErrors } from '@vmhub/core/adapter-kit';
import { SOURCE } from './guest.ts';

export const errors = adapterErrors(SOURCE);
export const cancelled = errors.cancelled;
export const throwIfCancelled = errors.throwIfCancelled;
