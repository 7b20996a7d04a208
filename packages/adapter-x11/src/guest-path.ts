/**
 * Guest paths are re-checked with core's resolveGuestPath: the router resolved them already, but an
 * adapter never trusts its caller with a traversal.
 */
import { resolveGuestPath, type GuestChannel } from '@vmhub/core';
import { x11Error } from './errors.ts';

export function guestPath(channel: GuestChannel, path: string, field = 'path'): string {
  if (!path.startsWith('/') && !channel.home) {
    throw x11Error('INVALID_REQUEST', `${field} "${path}" is relative and the channel does not know the user's home: give an absolute path`);
  }
  return resolveGuestPath(path, channel.home ?? '/', field);
}
