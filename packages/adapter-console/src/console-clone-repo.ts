/**
 * clone_repo: the host made the clone; its tar goes to the channel's putArchive, or, when the
 * channel has none (the guest agent), is buffered (capped) and unpacked with `tar -x` via exec,
 * each exec cancelled with the call (ctx.signal).
 */
import type { Readable } from 'node:stream';
import { VmhubError, type AdapterContext } from '@vmhub/core';
import { cancelled, throwIfCancelled } from './errors.ts';
import type { ConsoleState } from './runtime.ts';
import { guestChannel, SOURCE } from './guest.ts';

async function collect(stream: Readable, cap: number, signal: AbortSignal): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    throwIfCancelled(signal, 'clone_repo'); // leaving the loop destroys the stream
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

/** `dest` is absolute and normalised (core resolved it). */
export async function cloneRepo(s: ConsoleState, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  const ch = await guestChannel(ctx);
  const { dest } = input;
  if (ch.putArchive) {
    // putArchive takes no signal: a cancelled call only stops before it starts.
    throwIfCancelled(ctx.signal, 'clone_repo');
    await ch.putArchive(dest, input.archive);
    return;
  }
  const tar = await collect(input.archive, s.maxArchiveBytes, ctx.signal);
  for (const argv of [['mkdir', '-p', '--', dest], ['tar', '-x', '-f', '-', '-C', dest]]) {
    throwIfCancelled(ctx.signal, `clone_repo (${argv[0]})`);
    const r = await ch.exec(argv, { stdin: argv[0] === 'tar' ? tar : undefined, timeoutMs: 300_000, signal: ctx.signal });
    if (r.timed_out) {
      if (ctx.signal.aborted) throw cancelled(`clone_repo (${argv[0]})`);
      throw new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] ${argv[0]} in the guest did not finish within 300 s for ${dest}: clone with a smaller depth`, { source: SOURCE });
    }
    if (r.exit_code !== 0) {
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${argv[0]} in the guest failed for ${dest} (exit ${r.exit_code}): ${r.stderr.toString().trim().slice(0, 300)}`, { source: SOURCE });
    }
  }
}
