/**
 * Exec over SSH: argv with the agent's cwd, stdin, timeout and output cap; stdout and stderr
 * apart, the real exit code. A timeout or a cancelled call kills the command's process group in
 * the guest (ssh-exec.ts) and resolves `timed_out`. The PATH is tool_path (Homebrew first).
 */
import type { AdapterContext, ExecResult } from '@vmhub/core';
import type { MacosRuntime } from './runtime.ts';
import { sshExec } from './ssh-exec.ts';

export async function exec(rt: MacosRuntime, ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult> {
  return rt.track(sshExec(rt.ssh, input.argv, {
    cwd: input.cwd,
    stdin: input.stdin,
    path: rt.options.tool_path,
    timeoutMs: input.timeout_ms,
    maxOutputBytes: input.max_output_bytes,
    signal: ctx.signal,
  }));
}
