/**
 * Every guest command goes through the kit's guest runner (argv only, bounded, cancelled with the
 * call, typed errors); this file says what is Wayland about it: the session's environment set
 * explicitly (a channel's exec does not inherit the compositor's) and a compositor that does not
 * answer.
 */
import type { AdapterContext } from '@vmhub/core';
import { clip, openGuest as openKitGuest, type Guest } from '@vmhub/core/adapter-kit';
import { errors } from './errors.ts';
import type { HyprlandOptions } from './options.ts';

export type { Guest, RunOptions } from '@vmhub/core/adapter-kit';
export { clip } from '@vmhub/core/adapter-kit';

export const LOCALE_ENV: Readonly<Record<string, string>> = { LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };

const NO_COMPOSITOR = /failed to connect to (?:a )?wayland|no compositor running|Unable to connect to|WAYLAND_DISPLAY/i;

export function openGuest(ctx: AdapterContext, options: HyprlandOptions, env: Record<string, string>): Promise<Guest> {
  return openKitGuest(ctx, {
    errors,
    scriptName: 'vmhub-hyprland',
    env: { ...LOCALE_ENV, ...env },
    ...(options.user !== undefined ? { user: options.user } : {}),
    timeoutMs: options.command_timeout_ms,
    maxOutputBytes: 4 * 1024 * 1024,
    diagnose(what, stderr) {
      if (!NO_COMPOSITOR.test(stderr)) return undefined;
      return errors.error('INTERNAL', `${what} could not reach the compositor in the guest: is sway/Hyprland running for this user? (${clip(stderr)})`, {
        hint: 'The desktop is not up: wait with vm_lease_status or release and recreate the lease.',
      });
    },
  });
}
