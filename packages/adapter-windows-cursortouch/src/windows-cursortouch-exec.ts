/**
 * vm_exec through Windows-MCP's PowerShell tool: a script that starts argv[0] with argv[1..]
 * (a process, no shell), in cwd, with stdin, killed at timeout_ms, and prints its exit code and
 * both streams (base64, capped) on one marker line. Windows-MCP itself returns only one stream
 * ("stdout, or stderr when stdout is empty") and a status code, which is why the script reports
 * them itself. stdin too large for the command line is staged in a guest file first.
 *
 * `vm_exec {shell}` (shellArgv): the string is a PowerShell command, run by Windows PowerShell as
 * any argv is: `powershell.exe -NoProfile -NonInteractive -Command <string>`.
 */
import { randomBytes } from 'node:crypto';
import type { AdapterContext, ExecResult } from '@vmhub/core';
import { execScript, MAX_SCRIPT, parseExec } from './powershell.ts';
import { guestPath, home, powershell, type WinRuntime } from './runtime.ts';
import { putBytes, removeFile } from './windows-cursortouch-put-file.ts';

export interface ExecInput { argv: string[]; cwd?: string; stdin?: string | Buffer; timeout_ms: number; max_output_bytes: number }

/** Run argv with Windows paths already resolved (cwd a Windows path). */
export async function runArgv(rt: WinRuntime, ctx: AdapterContext, input: ExecInput): Promise<ExecResult> {
  const stdin = input.stdin === undefined ? undefined : Buffer.isBuffer(input.stdin) ? input.stdin : Buffer.from(input.stdin, 'utf8');
  const base = { argv: input.argv, timeoutMs: input.timeout_ms, maxOutputBytes: input.max_output_bytes, ...(input.cwd === undefined ? {} : { cwd: input.cwd }) };
  let script = execScript({ ...base, ...(stdin ? { stdin } : {}) });
  let staged: string | undefined;
  if (script.length > MAX_SCRIPT && stdin) {
    staged = `${(await home(rt, ctx)).replace(/\\+$/, '')}\\.vmhub\\stdin-${randomBytes(6).toString('hex')}.bin`;
    await putBytes(rt, ctx, staged, stdin);
    script = execScript({ ...base, stdinFile: staged });
  }
  try {
    return parseExec(await powershell(rt, ctx, script, input.timeout_ms + 10_000));
  } finally {
    if (staged) await removeFile(rt, ctx, staged).catch(() => undefined);
  }
}

/** What `shell` means on Windows: a PowerShell command (Windows PowerShell 5.1, on every Windows 10/11). */
export function shellArgv(command: string): string[] {
  return ['powershell.exe', '-NoProfile', '-NonInteractive', '-Command', command];
}

export async function exec(rt: WinRuntime, ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult> {
  const cwd = input.cwd === undefined ? undefined : await guestPath(rt, ctx, input.cwd);
  return runArgv(rt, ctx, { ...input, ...(cwd === undefined ? {} : { cwd }) });
}
