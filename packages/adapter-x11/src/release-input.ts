/**
 * After an input command was killed (the call was cancelled, or the command timed out): release
 * every key and pointer button the X server still holds down. A command killed between a press
 * and its release leaves that key down — the server then auto-repeats it into the focused window
 * (measured: "jjjjjj…", ~25 a second, after a cancelled vm_type) and a held modifier changes every
 * later key. Releasing by XTEST through the Perl X client (keymap.ts) needs no tool beyond
 * perl-base; without perl this is skipped (and said in docs/adapters/x11.md).
 */
import type { AdapterContext } from '@vmhub/core';
import { wasKilled } from './errors.ts';
import type { Guest } from './guest.ts';
import type { X11Runtime } from './runtime.ts';
import { KEYMAP_PL } from './keymap.ts';

const RELEASE_SCRIPT = 'command -v perl >/dev/null 2>&1 || exit 3; exec perl -e "$1" release';

/** Best effort, bounded, and run although the call's signal has aborted (a cleanup). */
export async function releaseInput(guest: Guest): Promise<void> {
  try {
    await guest.run(['sh', '-c', RELEASE_SCRIPT, 'vmhub-x11', KEYMAP_PL], { cleanup: true, timeoutMs: 5000, okCodes: [0, 3] });
  } catch {
    // Nothing more to do: the call's own error is what the caller reports.
  }
}

/** Run an input action; when one of its guest commands was killed, release what it may have left held. */
export async function releasingInput<R>(rt: X11Runtime, ctx: AdapterContext, action: () => Promise<R>): Promise<R> {
  try {
    return await action();
  } catch (err) {
    if (wasKilled(err)) await releaseInput(await rt.guest(ctx));
    throw err;
  }
}
