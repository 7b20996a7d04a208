/**
 * Cancelling a running guest command, as the tests of every channel and adapter check it: abort
 * the call's signal, and the command resolves at once as a killed one.
 */
import assert from 'node:assert/strict';
import type { ExecResult } from '@vmhub/core';

/**
 * Abort `controller` now and await `pending` (a command given its signal): it must resolve as a
 * killed command (exit_code null, timed_out true) within `withinMs`. Returns the result and how
 * long it took after the abort.
 */
export async function abortExec(controller: AbortController, pending: Promise<ExecResult>, withinMs: number): Promise<{ result: ExecResult; ms: number }> {
  const abortedAt = Date.now();
  controller.abort(new Error('tool call cancelled'));
  const result = await pending;
  const ms = Date.now() - abortedAt;
  assert.deepEqual([result.exit_code, result.timed_out], [null, true], 'a cancelled command resolves as killed');
  assert.ok(ms < withinMs, `resolved ${ms} ms after the abort`);
  return { result, ms };
}
