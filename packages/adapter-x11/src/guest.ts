/**
 * Every guest command goes through the kit's guest runner (argv only, bounded, cancelled with the
 * call, typed errors); this file says what is X11 about it: the X environment, the guest user,
 * and a display that does not answer.
 */
import type { AdapterContext } from '@vmhub/core';
import { clip, openGuest, type Guest } from '@vmhub/core/adapter-kit';
import { errors } from './errors.ts';
import type { X11Options } from './options.ts';

export type { Guest, RunOptions } from '@vmhub/core/adapter-kit';

export function xEnv(options: X11Options): Record<string, string> {
  const env: Record<string, string> = { DISPLAY: options.display, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };
  if (options.xauthority) env.XAUTHORITY = options.xauthority;
  return env;
}

export function openX11Guest(ctx: AdapterContext, options: X11Options): Promise<Guest> {
  return openGuest(ctx, {
    errors,
    scriptName: 'vmhub-x11',
    env: xEnv(options),
    ...(options.user !== undefined ? { user: options.user } : {}),
    timeoutMs: options.command_timeout_ms,
    maxOutputBytes: 1024 * 1024,
    diagnose(_what, stderr) {
      if (!/can't open display|cannot open display|unable to open display/i.test(stderr)) return undefined;
      return errors.error('INTERNAL', `the X display ${options.display} is not answering in the guest: is Xvfb running on ${options.display}? (${clip(stderr)})`, {
        hint: 'The desktop is not up: wait with vm_lease_status or release and recreate the lease.',
      });
    },
  });
}
