/**
 * Files over adb sync (adbkit's STAT/SEND/RECV): bytes never pass through a shell. What sync
 * cannot say well (a failed SEND reports "write after end" or "couldn't create file") is
 * diagnosed afterwards with one shell probe whose coreutils-style message maps to an errno, then
 * to the contract's typed error (core's fsError).
 */
import { Readable } from 'node:stream';
import { errnoFromText, fsError, PUT_COMMIT_SH, putTempPath, VmhubError, type ExecResult } from '@vmhub/core';
import type { DeviceClient } from '@devicefarmer/adbkit';

import { DEVICE_GONE } from './adb-exec.ts';

const SOURCE = 'channel-adb';

export interface FileContext {
  device: DeviceClient;
  user: string;
  exec(argv: string[], timeoutMs?: number): Promise<ExecResult>;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

function typed(errno: string | undefined, op: 'write' | 'read', path: string, user: string, fallback: string, cause?: unknown): Error {
  // The device left: the channel's guard turns the raw error into its device-lost error.
  if (!errno && DEVICE_GONE.test(fallback) && cause instanceof Error) return cause;
  const known = errno ? fsError(errno, { op, path, user, source: SOURCE }) : undefined;
  return known ?? new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] cannot ${op} ${path}: ${fallback}`, { source: SOURCE, details: { path }, cause });
}

// After a failed SEND: which part of the path is wrong? Prints the shell's own message. Probes
// with the temporary name ($2, removed again), never the file itself.
const DIAGNOSE_WRITE = String.raw`
p=$1; t=$2; d=${'$'}{t%/*}; [ -n "$d" ] || d=/
if [ -d "$p" ]; then echo "$p: Is a directory"; exit 0; fi
e=$(mkdir -p "$d" 2>&1) || { echo "$e"; exit 0; }
e=$( (: >> "$t") 2>&1) || { echo "$e"; exit 0; }
rm -f -- "$t"
`;

/**
 * Atomic (GuestChannel.putFile): SEND writes a temporary sibling (core's putTempPath), then one
 * shell (PUT_COMMIT_SH) checks it holds every byte, sets the mode (given; else an existing
 * file's; else 0644) and renames it over the path. A server killed mid-SEND leaves the file as
 * it was; the temporary file is removed on every failure seen here.
 */
export async function putFileOverSync(ctx: FileContext, path: string, data: Buffer, mode: number | undefined): Promise<void> {
  const tmp = putTempPath(path);
  try {
    const transfer = await ctx.device.push(Readable.from([data]), tmp, mode ?? 0o644);
    await new Promise<void>((resolve, reject) => {
      transfer.once('end', () => resolve());
      transfer.once('error', reject);
    });
  } catch (err) {
    const why = await ctx.exec(['sh', '-c', DIAGNOSE_WRITE, 'sh', path, tmp], 15_000).catch(() => undefined);
    await ctx.exec(['rm', '-f', '--', tmp], 15_000).catch(() => undefined);
    const text = why?.stdout.toString('utf8').trim() || (err instanceof Error ? err.message : String(err));
    throw typed(errnoFromText(text), 'write', path, ctx.user, text, err);
  }
  // adbd applies its own policy to the SEND mode (Debian's adbd leaves 0777): the commit sets it explicitly.
  const octal = (m: number) => (m & 0o7777).toString(8).padStart(4, '0');
  const commit = await ctx.exec(['sh', '-c', PUT_COMMIT_SH, 'sh', tmp, path, mode === undefined ? '' : octal(mode), String(data.length), '0644'], 15_000 + Math.ceil(data.length / 1048576) * 1000);
  if (commit.exit_code !== 0) {
    await ctx.exec(['rm', '-f', '--', tmp], 15_000).catch(() => undefined);
    const text = commit.stderr.toString('utf8').trim();
    throw typed(errnoFromText(text), 'write', path, ctx.user, `writing failed: ${text}`);
  }
}

export async function getFileOverSync(ctx: FileContext, path: string, cap: number): Promise<Buffer> {
  let stats: { mode: number; size: number };
  try {
    stats = await ctx.device.stat(path);
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    throw typed(/ENOENT/.test(text) ? 'ENOENT' : errnoFromText(text), 'read', path, ctx.user, text, err);
  }
  const kind = stats.mode & S_IFMT;
  if (kind === S_IFDIR) throw typed('EISDIR', 'read', path, ctx.user, 'is a directory');
  if (kind !== S_IFREG) throw typed('ENOTREG', 'read', path, ctx.user, 'not a regular file');
  const tooBig = (size: number): VmhubError =>
    fsError('EFBIG', { op: 'read', path, user: ctx.user, size, cap, source: SOURCE })!;
  if (stats.size > cap) throw tooBig(stats.size);

  const transfer = await ctx.device.pull(path);
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise<Buffer>((resolve, reject) => {
    transfer.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) {
        transfer.destroy();
        reject(tooBig(size));
        return;
      }
      chunks.push(chunk);
    });
    transfer.once('end', () => resolve(Buffer.concat(chunks)));
    transfer.once('error', (err: Error) => reject(typed(errnoFromText(err.message), 'read', path, ctx.user, err.message, err)));
  });
}
