/**
 * @vmhub/core/adapter-kit — the way to build an adapter: `defineAdapter` takes a per-lease
 * runtime factory and plain capability functions `(rt, ctx, input)`; the kit supplies the session,
 * the serial input queue, memoised facts (`Facts`), the guest runner with typed errors
 * (`openGuest`), the options merge and cancellation; and the parts desktop adapters share (key
 * names and chord syntax, window lookup, the probe's frame, vm_exec, clone unpacking, option
 * fields). The contract (what core calls on a session) is the root entry's; this subpath only
 * builds sessions that speak it.
 */
export { defineAdapter, openSession, servedCapabilities, INPUT_METHODS, type CapabilityFn, type CapabilityFns, type KitAdapterSpec, type KitSession, type SessionKit } from './define.ts';
export { InputQueue } from './input-queue.ts';
export { Facts } from './facts.ts';
export { openGuest, missingToolName, type Guest, type GuestSpec, type RunOptions } from './guest.ts';
export { adapterErrors, isCancellation, killed, wasKilled, clip, CANCELLED_HINT, type AdapterErrors } from './errors.ts';
export { mergeOptions, resolveOptions } from './options.ts';
export { KEY_NAME_ALIASES, PUNCTUATION_KEYSYMS, splitChords, type Chord } from './keys.ts';
export { KEYSYM_ALIASES, keysymValue, resolveKeysym, unicodeKeysym } from './keysyms.ts';
export { pickWindow } from './windows.ts';
export { probeWith, lackingTools, cloneRepoUnavailable, type Unavailable } from './probe.ts';
export { execAsAgent, type ExecInput } from './exec.ts';
export { unpackRepo, type UnpackOptions } from './clone.ts';
export { installGitCredential, credentialStoreLine, credentialFileName, type GitCredential } from './git-credential.ts';
export { desktopUserOption, pointerOptions, guestCommandOptions } from './desktop-options.ts';
export { FrameBuffers, readStableFrame, type StableFrameOptions } from './stable-frame.ts';
export { walkAtspi, assembleWalk, type ActiveWindowHint } from './atspi.ts';
