import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { fakeVm, frame, ok, failed, type Rect } from './harness.test.ts';

/** A 4x3 checkerboard of 1-px cells at (100, 50): zoomed, each must become a crisp block. */
const cells: Rect[] = Array.from({ length: 12 }, (_, i) => ({ x: 100 + (i % 4), y: 50 + Math.floor(i / 4), width: 1, height: 1, color: (i + Math.floor(i / 4)) % 2 ? [255, 255, 255] : [0, 0, 255] }));

describe('core: router zoom (vm_screenshot {region, scale})', () => {
  it('magnifies by the asked factor with crisp pixels, and a click maps to origin + x/scale', async () => {
    const vm = await fakeVm({ capture: () => frame(400, 300, [20, 20, 20], cells) });
    try {
      const r = await vm.call('vm_screenshot', { region: { x: 100, y: 50, width: 40, height: 30 }, scale: 4 });
      const s = ok(r);
      assert.deepEqual([s.width, s.height, s.scale, s.origin], [160, 120, 4, { x: 100, y: 50 }]);
      const img = r.content!.find((c) => c.type === 'image') as { data: string };
      const { data, info } = await sharp(Buffer.from(img.data, 'base64')).raw().toBuffer({ resolveWithObject: true });
      const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
      // screen (101, 50) is white; its 4x4 block in the image is all white, its neighbours blue.
      for (let y = 0; y < 4; y++) for (let x = 4; x < 8; x++) assert.deepEqual(at(x, y), [255, 255, 255], `image (${x}, ${y})`);
      assert.deepEqual(at(3, 0), [0, 0, 255]);
      assert.deepEqual(at(8, 3), [0, 0, 255]);
      for (const [x, y, sx, sy] of [[13, 7, 103, 51], [0, 0, 100, 50], [159, 119, 139, 79], [4.5, 3.99, 101, 50]]) {
        const c = ok(await vm.call('vm_click', { x, y }));
        assert.deepEqual([c.screen_x, c.screen_y], [sx, sy], `image (${x}, ${y})`);
      }
      assert.deepEqual(vm.inputs.map((i) => [i.args.x, i.args.y]), [[103, 51], [100, 50], [139, 79], [101, 50]]);
      failed(await vm.call('vm_click', { x: 160, y: 0 }), 'INVALID_REQUEST');
    } finally { await vm.close(); }
  });
  it('reduces a zoom past 4096 px a side to a whole factor and says so', async () => {
    const vm = await fakeVm({ capture: () => frame(1200, 300, [0, 0, 0]) });
    try {
      const s = ok(await vm.call('vm_screenshot', { region: { x: 0, y: 0, width: 1000, height: 10 }, scale: 8 }));
      assert.deepEqual([s.width, s.height, s.scale], [4000, 40, 4]);
      const c = ok(await vm.call('vm_click', { x: 3999, y: 39 }));
      assert.deepEqual([c.screen_x, c.screen_y], [999, 9]);
    } finally { await vm.close(); }
  });
  it('scale 1 or below fits the box as before', async () => {
    const vm = await fakeVm({ capture: () => frame(800, 600, [0, 0, 0]) });
    try {
      assert.deepEqual([ok(await vm.call('vm_screenshot', { max_width: 400 })).scale], [0.5]);
      assert.deepEqual([ok(await vm.call('vm_screenshot', { scale: 0.25 })).width], [200]);
      assert.deepEqual([ok(await vm.call('vm_screenshot', { scale: 1 })).width], [800]);
    } finally { await vm.close(); }
  });
  it('refuses negative coordinates and regions', async () => {
    const vm = await fakeVm({ capture: () => frame(100, 100, [0, 0, 0]) });
    try {
      // No screenshot and no screenSize: the path that used to let negatives through.
      assert.match(failed(await vm.call('vm_click', { x: -1, y: 5, coordinate_space: 'screen' }), 'INVALID_REQUEST').message, /off the screen/);
      failed(await vm.call('vm_scroll', { x: 5, y: -3, direction: 'down', coordinate_space: 'screen' }), 'INVALID_REQUEST');
      failed(await vm.call('vm_drag', { from: { x: 1, y: 1 }, to: { x: -2, y: 1 }, coordinate_space: 'screen' }), 'INVALID_REQUEST');
      failed(await vm.call('vm_screenshot', { region: { x: -1, y: 0, width: 10, height: 10 } }), 'INVALID_REQUEST');
      failed(await vm.call('vm_wait', { for: 'change', region: { x: 0, y: -5, width: 10, height: 10 }, timeout_seconds: 0 }), 'INVALID_REQUEST');
      ok(await vm.call('vm_screenshot', {}));
      failed(await vm.call('vm_click', { x: -0.5, y: 5 }), 'INVALID_REQUEST');
      assert.equal(vm.inputs.length, 0);
    } finally { await vm.close(); }
  });
});
