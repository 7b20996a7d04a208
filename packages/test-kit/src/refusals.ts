/**
 * A suite's typed refusals, counted by code: for suites that walk through many operations a guest
 * must refuse (root's files, names over 255 bytes, directories…) and check at the end which codes
 * came back how often.
 */
import assert from 'node:assert/strict';
import { VmhubError } from '@vmhub/core';

export interface Refusals {
  /** Every refusal seen, by its code (also the ones of the wrong code, before that fails). */
  readonly tally: Record<string, number>;
  /** `p` rejects with a VmhubError of `code`, not retryable, its message matching `text`; `what` names it in failures. */
  refused(what: string, p: Promise<unknown>, code: string, text?: RegExp): Promise<VmhubError>;
}

export function refusals(): Refusals {
  const tally: Record<string, number> = {};
  return {
    tally,
    async refused(what, p, code, text) {
      let err: unknown;
      try { await p; } catch (e) { err = e; }
      assert.ok(VmhubError.is(err), `${what}: expected ${code}, got ${err === undefined ? 'success' : String(err)}`);
      tally[err.code] = (tally[err.code] ?? 0) + 1;
      assert.equal(err.code, code, `${what}: ${err.code} ${err.message}`);
      assert.equal(err.retryable, false, what);
      if (text) assert.match(err.message, text, what);
      return err;
    },
  };
}
