/**
 * vm_clone_repo: the host-made tar (working tree + .git) is copied into dest as a file (the
 * PowerShell chunked upload, which also creates dest) and unpacked there by Windows' own
 * tar.exe (bsdtar, in System32 since Windows 10 1803), then removed.
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { AdapterContext } from '@vmhub/core';
import { winError } from './errors.ts';
import { guestPath, type WinRuntime } from './runtime.ts';
import { runArgv } from './windows-cursortouch-exec.ts';
import { putBytes, removeFile } from './windows-cursortouch-put-file.ts';

async function readAll(archive: Readable, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of archive) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += b.length;
    if (size > max) {
      archive.destroy();
      throw winError('INVALID_REQUEST', `the repository archive is over ${max} bytes (adapter option max_archive_bytes)`, { hint: 'Clone a smaller repository (or a shallow one), or raise max_archive_bytes.' });
    }
    parts.push(b);
  }
  return Buffer.concat(parts);
}

export async function cloneRepo(rt: WinRuntime, ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void> {
  const tar = await readAll(input.archive, rt.options.max_archive_bytes);
  const dest = await guestPath(rt, ctx, input.dest);
  const file = `${dest}\\.vmhub-clone-${randomBytes(6).toString('hex')}.tar`;
  await putBytes(rt, ctx, file, tar);
  try {
    const r = await runArgv(rt, ctx, { argv: ['tar.exe', '-x', '-f', file, '-C', dest], timeout_ms: 300_000, max_output_bytes: 65536 });
    if (r.exit_code !== 0) throw winError('INTERNAL', `tar.exe could not unpack the repository into ${dest} (exit ${String(r.exit_code)}${r.timed_out ? ', timed out' : ''}): ${r.stderr.toString('utf8').trim().slice(0, 500)}`);
  } finally {
    await removeFile(rt, ctx, file).catch(() => undefined);
  }
}
