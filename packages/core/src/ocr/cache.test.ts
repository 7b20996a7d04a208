import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cachedOcr } from './cache.ts';
import type { OcrEngine, OcrImage, OcrWord } from './types.ts';

function image(fill: number): OcrImage {
  return { data: Buffer.alloc(64 * 32, fill), width: 64, height: 32, channels: 1 };
}

/** Counts runs; resolves when release() is called, or rejects on abort. */
function countingEngine() {
  const state = { runs: 0, aborted: 0, pending: [] as Array<() => void> };
  const engine: OcrEngine = {
    id: 'fake',
    recognize(img, opts = {}) {
      state.runs++;
      return new Promise<OcrWord[]>((resolve, reject) => {
        const done = () => resolve([{ text: `w${img.data[0]}`, confidence: 1, x: 0, y: 0, width: 1, height: 1, line: 0 }]);
        state.pending.push(done);
        opts.signal?.addEventListener('abort', () => { state.aborted++; reject(new Error('aborted')); });
      });
    },
  };
  const release = () => { for (const f of state.pending.splice(0)) f(); };
  return { engine, state, release };
}

describe('core: ocr cache', () => {
  it('answers identical pixels without running the engine again', async () => {
    const { engine, state, release } = countingEngine();
    const ocr = cachedOcr(engine);
    const first = ocr.recognize(image(1));
    release();
    assert.equal((await first)[0]!.text, 'w1');
    assert.equal((await ocr.recognize(image(1)))[0]!.text, 'w1');
    assert.equal(state.runs, 1);
    const other = ocr.recognize(image(2));
    release();
    assert.equal((await other)[0]!.text, 'w2');
    assert.equal(state.runs, 2);
    assert.equal(ocr.id, 'fake');
  });
  it('forgets the least recently used screen past `entries`', async () => {
    const { engine, state, release } = countingEngine();
    const ocr = cachedOcr(engine, { entries: 2 });
    for (const fill of [1, 2, 1, 3, 1, 2]) { const p = ocr.recognize(image(fill)); release(); await p; }
    // 1,2 run; 1 hit; 3 runs and evicts 2; 1 hit; 2 runs again
    assert.equal(state.runs, 4);
  });
  it('shares one run between callers and aborts it only when all have given up', async () => {
    const { engine, state, release } = countingEngine();
    const ocr = cachedOcr(engine);
    const a = new AbortController(), b = new AbortController();
    const pa = ocr.recognize(image(5), { signal: a.signal });
    const pb = ocr.recognize(image(5), { signal: b.signal });
    a.abort();
    await assert.rejects(pa);
    assert.equal(state.aborted, 0);
    b.abort();
    await assert.rejects(pb);
    assert.equal(state.aborted, 1);
    assert.equal(state.runs, 1);
    const again = ocr.recognize(image(5));
    release();
    assert.equal((await again)[0]!.text, 'w5');
    assert.equal(state.runs, 2, 'an aborted run is not remembered');
  });
  it('returns copies, so a caller editing its words does not change the cache', async () => {
    const { engine, release } = countingEngine();
    const ocr = cachedOcr(engine);
    const p = ocr.recognize(image(7)); release();
    (await p)[0]!.text = 'changed';
    assert.equal((await ocr.recognize(image(7)))[0]!.text, 'w7');
  });
});
