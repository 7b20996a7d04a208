/**
 * Clone repo: the host made the clone (credentials never enter the guest); its tar stream is
 * unpacked at dest with the channel's archive API when it has one, else `tar -x` fed on stdin.
 */
import type { AdapterContext } from '@vmhub/core';
import type { Readable } from 'node:stream';
import { openGuest } from './guest.ts';
import { hyprError, throwIfCancelled } from './errors.ts';
import type { HyprRuntime } from './runtime.ts';

const UNTAR_SCRIPT = 'mkdir -p -- "$1" && exec tar -x -C "$1" -f -';

export async function cloneRepo(rt: HyprRuntime, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  const channel = await ctx.channel();
  if (channel.putArchive) {
    throwIfCancelled(ctx.signal, 'clone_repo');
    await channel.putArchive(input.dest, input.archive, { user: rt.options.user });
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input.archive) {
    throwIfCancelled(ctx.signal, 'clone_repo');
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > rt.options.max_archive_bytes) {
      input.archive.destroy();
      throw hyprError('INVALID_REQUEST', `the repository archive exceeds max_archive_bytes (${rt.options.max_archive_bytes} bytes): clone with a smaller depth, or raise the adapter option`);
    }
    chunks.push(buf);
  }
  // Unpacking needs no desktop: the bare guest works while the compositor is down.
  const guest = await openGuest(ctx, rt.options, {});
  await guest.sh(UNTAR_SCRIPT, [input.dest], { needs: ['tar'], stdin: Buffer.concat(chunks), timeoutMs: Math.max(rt.options.command_timeout_ms, 120_000) });
}
