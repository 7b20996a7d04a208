/**
 * Clone repo: the host made the clone (credentials never enter the guest); its tar stream is fed
 * to `tar -x` over SSH stdin at dest, streamed, never buffered whole. macOS's bsdtar and GNU tar
 * both read `-x -C dir -f -`.
 */
import type { Readable } from 'node:stream';
import type { AdapterContext } from '@vmhub/core';
import { fsError } from '@vmhub/core';
import { macError, SOURCE } from './errors.ts';
import type { MacosRuntime } from './runtime.ts';

const UNTAR = 'mkdir -p -- "$1" && exec tar -x -C "$1" -f -';

export async function cloneRepo(rt: MacosRuntime, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  try {
    await rt.run(ctx, ['/bin/sh', '-c', UNTAR, 'vmhub-untar', input.dest], { label: 'tar -x', stdin: input.archive, timeoutMs: Math.max(rt.options.command_timeout_ms, 300_000) });
  } catch (err) {
    const text = (err as Error).message;
    const errno = /permission denied/i.test(text) ? 'EACCES' : /not a directory|file exists/i.test(text) ? 'ENOTDIR' : undefined;
    const typed = errno && fsError(errno, { op: 'unpack', path: input.dest, user: rt.options.ssh_user, source: SOURCE });
    if (typed) throw typed;
    if ((err as { source?: string }).source === SOURCE) throw err;
    throw macError('INTERNAL', `unpacking the clone at ${input.dest} failed: ${text}`, { cause: err });
  }
}
