/**
 * Clone repo: the host made the clone (credentials never enter the guest); here its tar stream is
 * unpacked at dest (absolute: core resolved it) — with the channel's archive API when it has one, else `tar -x` fed on stdin.
 */
import type { AdapterContext } from '@vmhub/core';
import type { Readable } from 'node:stream';
import { throwIfCancelled, x11Error } from './errors.ts';
import type { X11Runtime } from './runtime.ts';

const UNTAR_SCRIPT = 'mkdir -p -- "$1" && exec tar -x -C "$1" -f -';

export async function cloneRepo(rt: X11Runtime, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  const channel = await ctx.channel();
  const { dest } = input;
  if (channel.putArchive) {
    // putArchive takes no signal: a cancelled call only stops before it starts.
    throwIfCancelled(ctx.signal, 'clone_repo');
    await channel.putArchive(dest, input.archive, { user: rt.options.user });
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input.archive) {
    throwIfCancelled(ctx.signal, 'clone_repo'); // leaving the loop destroys the stream
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > rt.options.max_archive_bytes) {
      input.archive.destroy();
      throw x11Error('INVALID_REQUEST', `the repository archive exceeds max_archive_bytes (${rt.options.max_archive_bytes} bytes): clone with a smaller depth, or raise the adapter option`);
    }
    chunks.push(buf);
  }
  const guest = await rt.guest(ctx);
  await guest.sh(UNTAR_SCRIPT, [dest], { needs: ['tar'], stdin: Buffer.concat(chunks), timeoutMs: Math.max(rt.options.command_timeout_ms, 120_000) });
}
