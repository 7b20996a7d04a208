/**
 * clone_repo: the host made the clone; its tar goes to the channel's putArchive, or, when the
 * channel has none (the guest agent), is buffered (capped) and unpacked with `tar -x` via exec.
 */
import type { Readable } from 'node:stream';
import { VmhubError, type AdapterContext } from '@vmhub/core';
import type { ConsoleRuntime } from './console-runtime.ts';
import { guestChannel, guestPath, SOURCE } from './guest.ts';

async function collect(stream: Readable, cap: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    total += buf.length;
    if (total > cap) {
      stream.destroy();
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] repository archive is larger than ${cap} bytes: clone with a smaller depth, or raise adapter option max_archive_bytes`, { source: SOURCE });
    }
    parts.push(buf);
  }
  return Buffer.concat(parts);
}

export async function cloneRepo(rt: ConsoleRuntime, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  const ch = await guestChannel(ctx);
  const dest = guestPath(ch, input.dest, 'dest');
  if (ch.putArchive) {
    await ch.putArchive(dest, input.archive);
    return;
  }
  const tar = await collect(input.archive, rt.maxArchiveBytes);
  for (const argv of [['mkdir', '-p', '--', dest], ['tar', '-x', '-f', '-', '-C', dest]]) {
    const r = await ch.exec(argv, { stdin: argv[0] === 'tar' ? tar : undefined, timeoutMs: 300_000 });
    if (r.exit_code !== 0) {
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${argv[0]} in the guest failed for ${dest} (exit ${r.exit_code}): ${r.stderr.toString().trim().slice(0, 300)}`, { source: SOURCE });
    }
  }
}
