/** What both channels' exec resolves with when the command was killed (timeout or cancellation). */
import type { ExecResult } from '@vmhub/core';

export function killedResult(): ExecResult {
  return { exit_code: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: true, truncated: false };
}
