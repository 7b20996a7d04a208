import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '../errors.ts';
import { HUMAN_BREAK_MS, HUMAN_CADENCE_MAX_CHARS, HUMAN_CADENCE_MAX_PAUSE_MS, HUMAN_KEY_MS, humanChars, humanPauses, typeHuman } from './cadence.ts';

describe('router: human cadence (vm_type {cadence: "human"})', () => {
  it('pauses 30–120 ms between characters, 80–250 ms more after spaces and punctuation, none before the first', () => {
    for (const r of [0, 0.5, 0.999]) {
      const chars = [...'ab c.d'];
      const p = humanPauses(chars, () => r);
      const key = HUMAN_KEY_MS.min + r * (HUMAN_KEY_MS.max - HUMAN_KEY_MS.min);
      const brk = HUMAN_BREAK_MS.min + r * (HUMAN_BREAK_MS.max - HUMAN_BREAK_MS.min);
      assert.deepEqual(p, [0, key, key, key + brk, key, key + brk].map(Math.round));
    }
  });

  it('the pauses of the longest text stay within the total (scaled down), so the call ends inside its deadline', () => {
    const chars = [...'. '.repeat(HUMAN_CADENCE_MAX_CHARS / 2)];
    const p = humanPauses(chars, () => 0.999);
    const total = p.reduce((a, b) => a + b, 0);
    assert.ok(total <= HUMAN_CADENCE_MAX_PAUSE_MS + chars.length, `${total} ms`);
    assert.ok(total >= HUMAN_CADENCE_MAX_PAUSE_MS * 0.99, 'scaled, not cut');
  });

  it('over the limit: INVALID_REQUEST naming it; CRLF counts as one Return', () => {
    assert.throws(() => humanChars('x'.repeat(HUMAN_CADENCE_MAX_CHARS + 1)), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /at most 300 characters/.test(e.message));
    assert.deepEqual(humanChars('a\r\nb'), ['a', '\n', 'b']);
    assert.equal(humanChars('é'.repeat(HUMAN_CADENCE_MAX_CHARS)).length, HUMAN_CADENCE_MAX_CHARS, 'counted in characters, not UTF-16 units');
  });

  it('types each character once, in order, and stops when the signal aborts', async () => {
    const got: string[] = [];
    await typeHuman([...'hi!'], async (c) => { got.push(c); }, AbortSignal.timeout(5000), () => 0);
    assert.deepEqual(got, ['h', 'i', '!']);
    const stop = new AbortController();
    const typed: string[] = [];
    const run = typeHuman([...'abcdef'], async (c) => { typed.push(c); if (c === 'b') stop.abort(); }, stop.signal, () => 0);
    await assert.rejects(run);
    assert.deepEqual(typed, ['a', 'b']);
  });
});
