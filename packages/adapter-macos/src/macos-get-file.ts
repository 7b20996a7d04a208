/** Get file: SFTP, refused before reading when over max_bytes; a missing file is NOT_FOUND. */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import type { MacosRuntime } from './runtime.ts';
import { sftpGet } from './ssh-files.ts';

export async function getFile(rt: MacosRuntime, ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer> {
  throwIfCancelled(ctx.signal, 'get_file');
  return sftpGet(rt.ssh, input.path, input.max_bytes, rt.options.ssh_user);
}
