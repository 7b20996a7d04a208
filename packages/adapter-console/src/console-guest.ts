/**
 * Files, exec and clone through the provider's GuestChannel (for QEMU: the guest agent). The
 * console itself cannot carry them; a template without a channel answers CAPABILITY_UNAVAILABLE
 * with the reason instead of pretending.
 */
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { resolveGuestPath, VmhubError, type AdapterContext, type ExecResult, type GuestChannel } from '@vmhub/core';

const SOURCE = 'adapter-console';
export const NO_CHANNEL_REASON = 'this template has no guest agent channel';

export async function guestChannel(ctx: AdapterContext): Promise<GuestChannel> {
  try {
    return await ctx.channel();
  } catch (err) {
    if (VmhubError.is(err) && err.code === 'CAPABILITY_UNAVAILABLE') {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${NO_CHANNEL_REASON} (${err.message}); the screen, keyboard and mouse still work: type the command with vm_type + vm_key Return`, { source: SOURCE, cause: err });
    }
    throw err;
  }
}

function guestPath(ch: GuestChannel, path: string, field: string): string {
  return resolveGuestPath(path, ch.home ?? '/root', field);
}

export async function putFile(ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void> {
  const ch = await guestChannel(ctx);
  await ch.putFile(guestPath(ch, input.path, 'path'), input.data, input.mode === undefined ? {} : { mode: input.mode });
}

export async function getFile(ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer> {
  const ch = await guestChannel(ctx);
  return ch.getFile(guestPath(ch, input.path, 'path'), { maxBytes: input.max_bytes });
}

export async function exec(ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult> {
  const ch = await guestChannel(ctx);
  return ch.exec(input.argv, {
    ...(input.cwd === undefined ? {} : { cwd: guestPath(ch, input.cwd, 'cwd') }),
    ...(input.stdin === undefined ? {} : { stdin: input.stdin }),
    timeoutMs: input.timeout_ms,
    maxOutputBytes: input.max_output_bytes,
  });
}

async function collect(stream: Readable, cap: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    total += buf.length;
    if (total > cap) {
      stream.destroy();
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] repository archive is larger than ${cap} bytes: clone with a smaller depth, or raise adapter option maxArchiveBytes`, { source: SOURCE });
    }
    parts.push(buf);
  }
  return Buffer.concat(parts);
}

export async function cloneRepo(ctx: AdapterContext, input: { dest: string; archive: Readable }, maxArchiveBytes: number): Promise<void> {
  const ch = await guestChannel(ctx);
  const dest = guestPath(ch, input.dest, 'dest');
  if (ch.putArchive) {
    await ch.putArchive(dest, input.archive);
    return;
  }
  const tar = await collect(input.archive, maxArchiveBytes);
  for (const argv of [['mkdir', '-p', '--', dest], ['tar', '-x', '-f', '-', '-C', dest]]) {
    const r = await ch.exec(argv, { stdin: argv[0] === 'tar' ? tar : undefined, timeoutMs: 300_000 });
    if (r.exit_code !== 0) {
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${argv[0]} in the guest failed for ${posix.normalize(dest)} (exit ${r.exit_code}): ${r.stderr.toString().trim().slice(0, 300)}`, { source: SOURCE });
    }
  }
}
