/**
 * Guest paths → host paths inside one machine's sandbox (`<machine dir>/root`). A guest path is
 * absolute, or relative to /home/user; a ".." segment is refused, and the real path of what
 * exists must stay inside the sandbox (a symlink cannot lead out).
 */
import { realpath } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { resolveGuestPath, VmhubError } from '@vmhub/core';
import { GUEST_HOME } from './fake-store.ts';

const SOURCE = 'provider-fake';

function guestPath(path: string, cwd: string = GUEST_HOME): string {
  if (typeof path !== 'string' || path.length === 0) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] empty guest path`, { source: SOURCE });
  // Core's rule refuses "/" as a file name; here it is also a working directory (exec cwd).
  return path === '/' ? path : resolveGuestPath(path, cwd);
}

export async function hostPath(root: string, path: string, cwd?: string): Promise<string> {
  const guest = guestPath(path, cwd);
  const host = join(root, guest);
  await assertInside(root, host);
  return host;
}

/** The nearest existing ancestor's real path must be the sandbox or inside it. */
export async function assertInside(root: string, host: string): Promise<void> {
  const realRoot = await realpath(root).catch(() => {
    throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] the machine's sandbox ${root} is gone: the machine was destroyed`, { source: SOURCE });
  });
  let probe = host;
  for (;;) {
    try {
      const real = await realpath(probe);
      if (real !== realRoot && !real.startsWith(realRoot + sep)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] path leads outside the guest filesystem`, { source: SOURCE });
      return;
    } catch (err) {
      if (VmhubError.is(err)) throw err;
      const parent = dirname(probe);
      if (parent === probe) return;
      probe = parent;
    }
  }
}
