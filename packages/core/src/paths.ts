/**
 * Guest path rules shared by every adapter: absolute, or relative to the desktop user's home;
 * no NUL, no ".." segment (a traversal is refused, not resolved), at most 4096 bytes.
 */
import { posix } from 'node:path';
import { VmhubError } from './errors.ts';

export function resolveGuestPath(path: string, home: string, field = 'path'): string {
  if (path.includes('\0')) throw new VmhubError('INVALID_REQUEST', `${field} contains a NUL byte`);
  if (path.split(/[\\/]/).includes('..')) throw new VmhubError('INVALID_REQUEST', `${field} "${path}" contains a ".." segment: give the path without traversal`);
  if (Buffer.byteLength(path) > 4096) throw new VmhubError('INVALID_REQUEST', `${field} is longer than 4096 bytes`);
  const abs = path.startsWith('/') ? path : posix.join(home, path.startsWith('~/') ? path.slice(2) : path);
  const normal = posix.normalize(abs);
  if (normal === '/') throw new VmhubError('INVALID_REQUEST', `${field} must name a file, not "/"`);
  return normal.endsWith('/') && normal.length > 1 ? normal.slice(0, -1) : normal;
}
