import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RawScreen } from '../channel.ts';
import { fakeVm, frame, ok, failed, pixel, word, type Rgb } from './harness.test.ts';

const A: Rgb = [10, 10, 10], B: Rgb = [200, 200, 200], C: Rgb = [90, 30, 30];
/** A terminal-like screen whose cursor cell shows `cursor`. */
const screen = (cursor: Rgb, extra = 0) => frame(200, 100, [0, 0, 0], [{ x: 20, y: 20, width: 8, height: 16, color: cursor }, ...(extra ? [{ x: 40 + extra, y: 60, width: 4, height: 4, color: [255, 255, 0] as Rgb }] : [])]);

describe('core: router vm_wait', () => {
  it('settle: a blinking 2-state cursor settles', async () => {
    const frames = [await screen(A), await screen(B)];
    const vm = await fakeVm({ capture: (n) => frames[n % 2]! });
    try {
      const r = ok(await vm.call('vm_wait', { for: 'settle', settle_ms: 200, timeout_seconds: 10 }));
      assert.equal(r.satisfied, true);
      assert.ok(vm.captures >= 3, `${vm.captures} captures`);
    } finally { await vm.close(); }
  });
  it('settle: a 3-state spinner never settles, and that is an answer, not an error', async () => {
    const frames = [await screen(A), await screen(B), await screen(C)];
    const vm = await fakeVm({ capture: (n) => frames[n % 3]! });
    try {
      const r = ok(await vm.call('vm_wait', { for: 'settle', settle_ms: 300, timeout_seconds: 1.5 }));
      assert.equal(r.satisfied, false);
      assert.ok(r.waited_ms >= 1500, `waited ${r.waited_ms} ms`);
    } finally { await vm.close(); }
  });
  it('settle: new content keeps it waiting until the screen stops changing', async () => {
    const moving = await Promise.all(Array.from({ length: 6 }, (_, i) => screen(A, i + 1)));
    const still = await screen(A);
    const vm = await fakeVm({ capture: (n) => moving[n] ?? still });
    try {
      const r = ok(await vm.call('vm_wait', { for: 'settle', settle_ms: 150, timeout_seconds: 10 }));
      assert.equal(r.satisfied, true);
      assert.ok(vm.captures >= 8, `satisfied after ${vm.captures} captures, 6 of them moving`);
    } finally { await vm.close(); }
  });
  it('change: compares with the latest screenshot of the same region, else with its own first frame', async () => {
    let current = await screen(A);
    const vm = await fakeVm({ capture: () => current });
    try {
      ok(await vm.call('vm_screenshot', {}));
      assert.equal(ok(await vm.call('vm_wait', { for: 'change', timeout_seconds: 0 })).satisfied, false);
      current = await screen(B);
      const before = vm.captures;
      assert.equal(ok(await vm.call('vm_wait', { for: 'change', timeout_seconds: 0 })).satisfied, true, 'B differs from the A the agent saw');
      assert.equal(vm.captures - before, 1, 'checked once');
      // Another region: its own first frame is the baseline, and the screen stays B.
      assert.equal(ok(await vm.call('vm_wait', { for: 'change', region: { x: 0, y: 0, width: 50, height: 50 }, timeout_seconds: 0.3 })).satisfied, false);
    } finally { await vm.close(); }
  });
  it('text: satisfied once the text appears, OCR once per distinct frame', async () => {
    const blank = await frame(300, 200, [0, 0, 0]);
    const saved = await frame(300, 200, [0, 0, 0], [{ x: 0, y: 0, width: 1, height: 1, color: [255, 0, 0] }]);
    const vm = await fakeVm({
      capture: (n): RawScreen => (n < 4 ? blank : saved),
      ocr: (img) => pixel(img, 0, 0)[0] === 255 ? [word('File', 40, 30, 30, 12), word('Saved.', 76, 30, 48, 12)] : [word('Editing', 40, 30, 60, 12)],
    });
    try {
      const r = ok(await vm.call('vm_wait', { for: 'text', text: 'saved', timeout_seconds: 10 }));
      assert.equal(r.satisfied, true);
      assert.equal(vm.captures, 5);
      assert.equal(vm.ocrRuns, 2, 'the unchanged blank frame is read once');
      assert.equal(r.match.text.toLowerCase().startsWith('saved'), true);
      assert.deepEqual([r.match.x, r.match.y], [76, 30], 'no screenshot yet: screen pixels');
      failed(await vm.call('vm_wait', { for: 'text', timeout_seconds: 0 }), 'INVALID_REQUEST');
    } finally { await vm.close(); }
  });
  it('text: without an OCR engine, CAPABILITY_UNAVAILABLE with the install hint', async () => {
    const vm = await fakeVm({ capture: () => frame(50, 50, [0, 0, 0]), ocr: false });
    try {
      const e = failed(await vm.call('vm_wait', { for: 'text', text: 'x' }), 'CAPABILITY_UNAVAILABLE');
      assert.match(e.hint, /tesseract/);
      assert.equal(vm.captures, 0);
    } finally { await vm.close(); }
  });
});
