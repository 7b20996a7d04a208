/**
 * Asserting vmhub's typed errors in tests (`@vmhub/test-kit/errors`; it loads @vmhub/core).
 */
import assert from 'node:assert/strict';
import { VmhubError } from '@vmhub/core';

/**
 * `p` rejects with a VmhubError of `code` (and, given `text`, a message matching it); resolves
 * with that error for more checks. Fails naming the code when `p` resolves or rejects otherwise.
 */
export async function rejectsWith(p: Promise<unknown>, code: string, text?: RegExp): Promise<VmhubError> {
  try {
    await p;
  } catch (err) {
    assert.ok(VmhubError.is(err), `expected a VmhubError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (text) assert.match(err.message, text);
    return err;
  }
  assert.fail(`expected a VmhubError ${code}, but it resolved`);
}
export { refusals, type Refusals } from './refusals.ts';
