/**
 * Exec: argv through the channel with the agent's cwd, stdin, timeout and output cap; the call's
 * signal goes along, so a cancelled vm_exec is killed on the device. `vm_exec {shell}` runs in
 * the device's own shell, `/system/bin/sh` (mksh; a device has no /bin/sh).
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import type { AndroidRuntime } from './runtime.ts';

/** What `shell` means on Android: `/system/bin/sh -c <string>`, the shell `adb shell` gives. */
export function shellArgv(command: string): string[] {
  return ['/system/bin/sh', '-c', command];
}

export async function exec(_rt: AndroidRuntime, ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult> {
  const channel = await ctx.channel();
  return channel.exec(input.argv, { cwd: input.cwd, stdin: input.stdin, timeoutMs: input.timeout_ms, maxOutputBytes: input.max_output_bytes, signal: ctx.signal });
}
