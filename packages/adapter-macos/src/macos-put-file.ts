/** Put file: SFTP as the SSH user, parents created, mode applied (ssh-files.ts). */
import type { AdapterContext } from '@vmhub/core';
import { throwIfCancelled } from './errors.ts';
import type { MacosRuntime } from './runtime.ts';
import { sftpPut } from './ssh-files.ts';

export async function putFile(rt: MacosRuntime, ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void> {
  throwIfCancelled(ctx.signal, 'put_file');
  await sftpPut(rt.ssh, input.path, input.data, input.mode, rt.options.ssh_user);
}
