// The server's OCR slot limit: never more recognitions at once than allowed, queued ones run in
// turn, and one cancelled while queued leaves the queue without taking a slot.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { OcrEngine } from '@vmhub/core';
import { limited } from '../src/ocr.ts';

it('server: OCR runs at most max recognitions at once; a queued one can be cancelled', async () => {
  let now = 0, peak = 0, calls = 0;
  const gates: (() => void)[] = [];
  const engine: OcrEngine = { id: 'gated', recognize: () => { calls++; now++; peak = Math.max(peak, now); return new Promise((r) => gates.push(() => { now--; r([]); })); } };
  const l = limited(engine, 2);
  const image = { data: Buffer.alloc(4), width: 2, height: 2, channels: 1 as const };
  const runs = [l.recognize(image), l.recognize(image), l.recognize(image)];
  const cancel = new AbortController();
  const cancelled = l.recognize(image, { signal: cancel.signal });
  await new Promise((r) => setImmediate(r));
  assert.equal(now, 2, 'two run, two wait');
  cancel.abort();
  await assert.rejects(cancelled, (e: any) => e.code === 'TIMEOUT');
  while (gates.length) { gates.shift()!(); await new Promise((r) => setImmediate(r)); }
  await Promise.all(runs);
  assert.equal(peak, 2);
  assert.equal(calls, 3, 'the cancelled one never ran');
  assert.equal(now, 0);
});
