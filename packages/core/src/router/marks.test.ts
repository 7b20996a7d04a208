import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { fakeVm, frame, ok, failed, word } from './harness.test.ts';

async function pixels(r: CallToolResult) {
  const img = r.content!.find((c) => c.type === 'image') as { data: string };
  return sharp(Buffer.from(img.data, 'base64')).raw().toBuffer({ resolveWithObject: true });
}

const tree = {
  role: 'desktop', x: 0, y: 0, width: 800, height: 600, children: [
    { role: 'panel', x: 0, y: 0, width: 800, height: 600, children: [
      { role: 'push button', name: 'Apply', x: 95, y: 395, width: 60, height: 30 }, // over the "OK" text mark: skipped
      { role: 'push button', x: 600, y: 50, width: 24, height: 24 }, // an icon button OCR cannot read
    ] },
  ],
};

describe('core: router vm_screenshot {marks} and vm_click {mark}', () => {
  it('numbers text and inspect elements in reading order, draws them, stores them in screen pixels', async () => {
    let words = [word('Cancel', 300, 400, 60, 20, 1), word('OK', 100, 400, 30, 20, 1), word('File', 20, 10, 40, 16, 0)];
    const vm = await fakeVm({ capture: () => frame(800, 600, [255, 255, 255]), ocr: () => words, inspect: tree });
    try {
      failed(await vm.call('vm_click', { mark: 1 }), 'INVALID_REQUEST');
      const plainResult = await vm.call('vm_screenshot', { max_width: 400 });
      const marked = await vm.call('vm_screenshot', { max_width: 400, marks: true });
      const s = ok(marked);
      assert.deepEqual(s.marks.map((m: any) => [m.id, m.text]), [[1, 'File'], [2, 'push button'], [3, 'OK'], [4, 'Cancel']]);
      assert.deepEqual(s.marks[2], { id: 3, text: 'OK', x: 50, y: 200, width: 15, height: 10 }, 'image pixels (scale 0.5)');
      assert.deepEqual(vm.screen.marks![2], { id: 3, text: 'OK', x: 100, y: 400, width: 30, height: 20 }, 'stored in screen pixels');
      const plain = await pixels(plainResult), drawn = await pixels(marked);
      const at = (img: typeof plain, x: number, y: number) => [...img.data.subarray((y * img.info.width + x) * img.info.channels, (y * img.info.width + x) * img.info.channels + 3)];
      assert.notDeepEqual(at(drawn, 50, 205), at(plain, 50, 205), 'the box edge of mark 3 is drawn');
      assert.deepEqual(at(drawn, 250, 120), at(plain, 250, 120), 'away from any box the image is unchanged');
      const c = ok(await vm.call('vm_click', { mark: 3 }));
      assert.deepEqual([c.screen_x, c.screen_y, c.text], [115, 410, 'OK']);
      assert.deepEqual(ok(await vm.call('vm_click', { mark: 2 })).screen_x, 612);
      assert.match(failed(await vm.call('vm_click', { mark: 9 }), 'INVALID_REQUEST').message, /vm_screenshot \{marks: true\}/);
      // A plain screenshot keeps the marks; the next marks screenshot replaces them.
      ok(await vm.call('vm_screenshot', {}));
      ok(await vm.call('vm_click', { mark: 4 }));
      assert.deepEqual(vm.inputs.map((i) => [i.args.x, i.args.y]), [[115, 410], [612, 62], [330, 410]]);
      words = [word('Save', 700, 500, 40, 20)];
      assert.deepEqual(ok(await vm.call('vm_screenshot', { marks: true })).marks.map((m: any) => m.text), ['push button', 'Apply', 'Save'], 'Apply is no longer under a text mark');
      assert.equal(ok(await vm.call('vm_click', { mark: 3 })).text, 'Save');
      failed(await vm.call('vm_click', { mark: 4 }), 'INVALID_REQUEST');
    } finally { await vm.close(); }
  });
});
