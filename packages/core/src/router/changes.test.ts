import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { baselineOf, changedBox } from './changes.ts';
import { fakeVm, frame, ok, failed, type Rect } from './harness.test.ts';

const pixels = (width: number, height: number, channels: 3 | 4, paint: (x: number, y: number) => number[]) => {
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(paint(x, y).slice(0, channels), (y * width + x) * channels);
  return { data, width, height, channels, region: { x: 0, y: 0, width, height }, screen: { width, height } };
};

describe('core: changed-pixel box', () => {
  for (const channels of [3, 4] as const) {
    it(`finds the exact box of changed pixels (${channels} channels), none when equal, the whole screen without a baseline`, () => {
      const base = pixels(64, 40, channels, () => [10, 10, 10, 255]);
      assert.deepEqual(changedBox(undefined, base), { x: 0, y: 0, width: 64, height: 40 });
      assert.equal(changedBox(baselineOf(base), base), undefined);
      // Two changed pixels, one channel each: (5, 7) red channel, (30, 21) blue channel.
      const now = pixels(64, 40, channels, (x, y) => (x === 5 && y === 7 ? [11, 10, 10, 255] : x === 30 && y === 21 ? [10, 10, 99, 255] : [10, 10, 10, 255]));
      assert.deepEqual(changedBox(baselineOf(base), now), { x: 5, y: 7, width: 26, height: 15 });
      const corner = pixels(64, 40, channels, (x, y) => (x === 63 && y === 39 ? [0, 0, 0, 255] : [10, 10, 10, 255]));
      assert.deepEqual(changedBox(baselineOf(base), corner), { x: 63, y: 39, width: 1, height: 1 });
      assert.deepEqual(changedBox(baselineOf(base), pixels(32, 40, channels, () => [10, 10, 10, 255])), { x: 0, y: 0, width: 32, height: 40 }, 'another size: the whole screen');
    });
  }
  it('the baseline is a copy: an adapter reusing its buffer does not change it', () => {
    const px = pixels(8, 8, 4, () => [1, 2, 3, 255]);
    const base = baselineOf(px);
    px.data.fill(0);
    assert.equal(base.data[0], 1);
  });
  it('the next baseline of the same shape is copied into the previous one\'s buffer; another shape gets its own', () => {
    const base = baselineOf(pixels(8, 8, 4, () => [1, 2, 3, 255]));
    const next = baselineOf(pixels(8, 8, 4, () => [9, 9, 9, 255]), base);
    assert.equal(next, base);
    assert.equal(next.data[0], 9);
    const other = baselineOf(pixels(4, 8, 4, () => [5, 5, 5, 255]), base);
    assert.notEqual(other, base);
    assert.deepEqual([other.width, other.data[0], base.data[0]], [4, 5, 9]);
  });
});

describe('core: router vm_screenshot {changed_only}', () => {
  it('sends the whole screen first, then only the changed box (clicks map into it), then nothing when unchanged', async () => {
    let rects: Rect[] = [];
    const vm = await fakeVm({ capture: () => frame(400, 300, [20, 20, 20], rects) });
    try {
      const first = ok(await vm.call('vm_screenshot', { changed_only: true }));
      assert.deepEqual([first.width, first.height, first.origin], [400, 300, { x: 0, y: 0 }]);
      rects = [{ x: 120, y: 80, width: 30, height: 10, color: [255, 0, 0] }];
      const r = await vm.call('vm_screenshot', { changed_only: true });
      const s = ok(r);
      assert.deepEqual([s.origin, s.width, s.height, s.scale], [{ x: 120, y: 80 }, 30, 10, 1], 'the changed box: origin and size in screen pixels');
      const img = r.content!.find((c) => c.type === 'image') as { data: string };
      const { data, info } = await sharp(Buffer.from(img.data, 'base64')).raw().toBuffer({ resolveWithObject: true });
      assert.deepEqual([info.width, info.height, [...data.subarray(0, 3)]], [30, 10, [255, 0, 0]], 'the image is the changed box');
      const c = ok(await vm.call('vm_click', { x: 5, y: 5 }));
      assert.deepEqual([c.screen_x, c.screen_y], [125, 85], 'image coordinates map through the box\'s origin');
      const same = await vm.call('vm_screenshot', { changed_only: true });
      assert.deepEqual([ok(same).bytes, same.content!.some((x) => x.type === 'image'), (same.content![0] as { text: string }).text.startsWith('unchanged')], [0, false, true]);
      const c2 = ok(await vm.call('vm_click', { x: 5, y: 5 }));
      assert.deepEqual([c2.screen_x, c2.screen_y], [125, 85], 'an unchanged answer keeps the latest image\'s mapping');
      // A plain full screenshot becomes the baseline too.
      rects = [{ x: 0, y: 0, width: 2, height: 2, color: [0, 255, 0] }];
      ok(await vm.call('vm_screenshot', {}));
      assert.equal(ok(await vm.call('vm_screenshot', { changed_only: true })).bytes, 0);
      failed(await vm.call('vm_screenshot', { changed_only: true, region: { x: 0, y: 0, width: 10, height: 10 } }), 'INVALID_REQUEST');
      failed(await vm.call('vm_screenshot', { changed_only: true, marks: true }), 'INVALID_REQUEST');
    } finally { await vm.close(); }
  });
});
