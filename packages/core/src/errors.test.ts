import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VmhubError, fromErrorPayload, toErrorPayload } from './errors.ts';

test('fromErrorPayload inverts toErrorPayload: code, message, retryable, hint, source and details survive JSON', () => {
  const cases = [
    new VmhubError('NOT_FOUND', 'no job j-1', { source: 'jobs', details: { job_id: 'j-1' } }),
    new VmhubError('JOB_LOST', 'gone', { retryable: true, hint: 'start it again' }),
    new VmhubError('INTERNAL', 'plain'),
  ];
  for (const err of cases) {
    const back = fromErrorPayload(JSON.parse(JSON.stringify(toErrorPayload(err))));
    assert.ok(VmhubError.is(back));
    assert.deepEqual(toErrorPayload(back), toErrorPayload(err));
    assert.equal(back.source, err.source);
    assert.equal(back.retryable, err.retryable);
    assert.equal(back.hint, err.hint);
  }
});

test('fromErrorPayload keeps a payload hint and retryable that differ from the code defaults', () => {
  const back = fromErrorPayload({ code: 'TIMEOUT', message: 'slow', retryable: false, hint: 'operator: raise the budget' });
  assert.equal(back.retryable, false);
  assert.equal(back.hint, 'operator: raise the budget');
  assert.equal(back.source, undefined);
  assert.equal(back.details, undefined);
});
