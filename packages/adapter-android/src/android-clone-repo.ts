/**
 * Clone repo: the host made the clone; its tar stream is unpacked at dest with the channel's
 * putArchive (the adb channel streams it into the device's tar), else `tar -x` fed on stdin.
 */
import type { Readable } from 'node:stream';
import type { AdapterContext } from '@vmhub/core';
import { androidError, throwIfCancelled } from './errors.ts';
import type { AndroidRuntime } from './runtime.ts';

const MAX_ARCHIVE = 512 * 1024 * 1024;
const UNTAR = 'mkdir -p "$1" && exec tar -x -f - -C "$1"';

export async function cloneRepo(rt: AndroidRuntime, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  const channel = await ctx.channel();
  throwIfCancelled(ctx.signal, 'clone_repo');
  if (channel.putArchive) {
    await channel.putArchive(input.dest, input.archive);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input.archive) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buf.length;
    if (size > MAX_ARCHIVE) throw androidError('INVALID_REQUEST', `the repository archive exceeds ${MAX_ARCHIVE} bytes: clone with a smaller depth`);
    chunks.push(buf);
  }
  const device = await rt.device(ctx);
  await device.sh(UNTAR, [input.dest], { stdin: Buffer.concat(chunks), timeoutMs: 600_000, label: 'tar' });
}
