// step-result.ts: what a recording step keeps of a call's answer — the error's code and message,
// or the structured result under the arguments' redaction, bounded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_STRING, REDACTED } from './redact.ts';
import { MAX_RESULT_CHARS, stepResult } from './step-result.ts';

const M = 'S3CRET-MARKER-77ab';
const ok = (structured: Record<string, unknown>) => stepResult('ok', { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured });

describe('server: a recording step\'s result', () => {
  it('keeps vm_exec\'s exit code, stdout and stderr, with secrets in the output masked', () => {
    const r = ok({ lease_id: 'x', expires_at: '2026-12-06T10:00:00.000Z', exit_code: 3, stdout: `hello\nAPI_TOKEN=${M}\n`, stderr: `curl https://u:${M}@h/x failed`, timed_out: false });
    assert.equal(r?.exit_code, 3);
    assert.match(String(r?.stdout), /^hello\nAPI_TOKEN=\*\*\*/);
    assert.match(String(r?.stderr), /failed$/);
    assert.ok(!JSON.stringify(r).includes(M), JSON.stringify(r));
    assert.ok(!('lease_id' in r!) && !('expires_at' in r!), 'the lease\'s own fields are not kept');
  });

  it('cuts long output and hides file bodies', () => {
    const r = ok({ stdout: 'x'.repeat(5000), content_base64: 'QUJD', path: '/tmp/a' });
    assert.equal(String(r?.stdout).slice(0, MAX_STRING), 'x'.repeat(MAX_STRING));
    assert.match(String(r?.stdout), /…\(5000 chars\)$/);
    assert.equal(r?.content_base64, REDACTED);
    assert.equal(r?.path, '/tmp/a');
  });

  it('an error keeps its code and its (scrubbed, cut) message', () => {
    const err = { code: 'NOT_FOUND', message: `no window "Editor" (password=${M}) ${'y'.repeat(600)}`, retryable: false, hint: 'h' };
    const r = stepResult('error', { isError: true, content: [{ type: 'text', text: 'x' }], structuredContent: err });
    assert.equal(r?.code, 'NOT_FOUND');
    assert.match(String(r?.message), /^no window "Editor"/);
    assert.ok(!String(r?.message).includes(M));
    assert.ok(String(r?.message).length < 400, 'the message is cut');
    assert.deepEqual(Object.keys(r!).sort(), ['code', 'message'], 'nothing else of the error');
  });

  it('a big result keeps its scalars and says what the rest was; never over the bound', () => {
    const windows = Array.from({ length: 200 }, (_, i) => ({ id: `0x${i}`, title: `window ${i}`, x: i, y: i, width: 100, height: 100 }));
    const r = ok({ windows, count: 200 });
    assert.deepEqual(r, { windows: '[200 items]', count: 200 });
    const wide = ok(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`field${i}`, 'v'.repeat(150)])));
    assert.ok(JSON.stringify(wide).length <= MAX_RESULT_CHARS, JSON.stringify(wide).slice(0, 200));
    assert.match(String(wide?.omitted), /100 fields/);
  });

  it('an empty result, or only the delivered note, keeps nothing', () => {
    assert.equal(ok({}), undefined);
    assert.equal(ok({ lease_id: 'x', expires_at: '2026-12-06T10:00:00.000Z', human_note: 'n' }), undefined);
  });
});
