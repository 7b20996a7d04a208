/**
 * vm_clone_repo's guest side: the host made the clone (credentials never enter the guest); its tar
 * stream is unpacked at `dest` (absolute: core resolved it) with the channel's archive API when it
 * has one, else buffered (up to the adapter's max_archive_bytes) and fed to `tar -x` in the guest.
 */
import type { Readable } from 'node:stream';
import type { AdapterContext } from '../adapter.ts';
import type { AdapterErrors } from './errors.ts';
import type { Guest } from './guest.ts';

const UNTAR_SCRIPT = 'mkdir -p -- "$1" && exec tar -x -C "$1" -f -';

/** The adapter options unpacking reads (guestCommandOptions and the session's user). */
export interface UnpackOptions {
  /** The guest user the files belong to. */
  user?: string | undefined;
  /** The most a stream without putArchive may buffer. */
  max_archive_bytes: number;
  /** The adapter's command timeout; tar gets at least two minutes. */
  command_timeout_ms: number;
}

/** Unpack `archive` at `dest`; `guest` is the runner `tar` runs with (only without putArchive). */
export async function unpackRepo(ctx: AdapterContext, input: { dest: string; archive: Readable }, options: UnpackOptions, errors: AdapterErrors, guest: () => Promise<Guest>): Promise<void> {
  const channel = await ctx.channel();
  const { dest, archive } = input;
  if (channel.putArchive) {
    // putArchive takes no signal: a cancelled call only stops before it starts.
    errors.throwIfCancelled(ctx.signal, 'clone_repo');
    await channel.putArchive(dest, archive, { user: options.user });
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of archive) {
    errors.throwIfCancelled(ctx.signal, 'clone_repo'); // leaving the loop destroys the stream
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > options.max_archive_bytes) {
      archive.destroy();
      throw errors.error('INVALID_REQUEST', `the repository archive exceeds max_archive_bytes (${options.max_archive_bytes} bytes): clone with a smaller depth, or raise the adapter option`);
    }
    chunks.push(buf);
  }
  const runner = await guest();
  await runner.sh(UNTAR_SCRIPT, [dest], { needs: ['tar'], stdin: Buffer.concat(chunks), timeoutMs: Math.max(options.command_timeout_ms, 120_000) });
}
