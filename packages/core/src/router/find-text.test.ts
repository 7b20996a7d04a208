import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '../errors.ts';
import { fakeVm, frame, ok, failed, word } from './harness.test.ts';

const words = [word('Hello', 201, 101, 81, 21, 0), word('world', 290, 101, 70, 21, 0), word('Hello', 700, 500, 60, 20, 1), word('OK', 100, 400, 30, 20, 2), word('OK', 500, 400, 30, 20, 2, 0.9)];

describe('core: router vm_find_text and vm_click {text}', () => {
  it('maps matches into the downscaled latest screenshot and leaves out those outside it', async () => {
    const vm = await fakeVm({ capture: () => frame(800, 600, [255, 255, 255]), ocr: () => words });
    try {
      // Before any screenshot: screen pixels.
      assert.deepEqual(ok(await vm.call('vm_find_text', { text: 'hello' })).matches.map((m: any) => [m.x, m.y]), [[201, 101], [700, 500]]);
      ok(await vm.call('vm_screenshot', { region: { x: 0, y: 0, width: 400, height: 300 }, max_width: 200 }));
      const { matches } = ok(await vm.call('vm_find_text', { text: 'Hello' }));
      assert.deepEqual(matches, [{ text: 'Hello', confidence: 0.95, x: 100.5, y: 50.5, width: 40.5, height: 10.5 }]);
      const two = ok(await vm.call('vm_find_text', { text: 'hello world' })).matches;
      assert.equal(two.length, 1);
      assert.equal(two[0].x, 100.5);
      assert.deepEqual(ok(await vm.call('vm_find_text', { text: 'absent' })).matches, []);
    } finally { await vm.close(); }
  });
  it('find_text reads only its region', async () => {
    let seen = { width: 0, height: 0 };
    const vm = await fakeVm({ capture: () => frame(800, 600, [255, 255, 255]), ocr: (img) => { seen = { width: img.width, height: img.height }; return [word('OK', 10, 10, 30, 20)]; } });
    try {
      const { matches } = ok(await vm.call('vm_find_text', { text: 'OK', region: { x: 500, y: 400, width: 100, height: 50 } }));
      assert.deepEqual(seen, { width: 100, height: 50 });
      assert.deepEqual([matches[0].x, matches[0].y], [510, 410], 'region pixels moved to the screen');
    } finally { await vm.close(); }
  });
  it('clicks the centre of the index-th match in screen pixels, reporting the text', async () => {
    const vm = await fakeVm({ capture: () => frame(800, 600, [255, 255, 255]), ocr: () => words });
    try {
      ok(await vm.call('vm_screenshot', { max_width: 400 }));
      const first = ok(await vm.call('vm_click', { text: 'ok' }));
      const second = ok(await vm.call('vm_click', { text: 'OK', index: 1 }));
      assert.deepEqual([first.screen_x, first.screen_y, first.text], [115, 410, 'OK']);
      assert.deepEqual([second.screen_x, second.screen_y], [515, 410]);
      assert.deepEqual(vm.inputs.map((i) => [i.kind, i.args.x, i.args.y]), [['click', 115, 410], ['click', 515, 410]]);
      assert.match(failed(await vm.call('vm_click', { text: 'OK', index: 2 }), 'NOT_FOUND').message, /index 2 is out of range \(0\.\.1\)/);
      const e = failed(await vm.call('vm_click', { text: 'Helo wrld!' }), 'NOT_FOUND');
      assert.match(e.message, /no text matching "Helo wrld!".*nearest seen: "Hello world"/);
      assert.equal(vm.inputs.length, 2);
    } finally { await vm.close(); }
  });
  it('refuses anything but exactly one target', async () => {
    const vm = await fakeVm({ capture: () => frame(100, 100, [0, 0, 0]), ocr: () => [], screenSize: { width: 100, height: 100 } });
    try {
      for (const args of [{}, { x: 1 }, { x: 1, y: 1, text: 'a' }, { text: 'a', mark: 1 }, { x: 1, y: 1, index: 0 }, { mark: 1, index: 1 }]) {
        failed(await vm.call('vm_click', args), 'INVALID_REQUEST');
      }
      assert.equal(vm.inputs.length, 0);
    } finally { await vm.close(); }
  });
  it('without OCR: CAPABILITY_UNAVAILABLE with the install hint (or the host\'s own)', async () => {
    const none = await fakeVm({ capture: () => frame(100, 100, [0, 0, 0]), ocr: false });
    const broken = await fakeVm({ capture: () => frame(100, 100, [0, 0, 0]), ocr: new VmhubError('CAPABILITY_UNAVAILABLE', 'tesseract not found', { hint: 'apt install tesseract-ocr tesseract-ocr-eng' }) });
    try {
      assert.match(failed(await none.call('vm_find_text', { text: 'a' }), 'CAPABILITY_UNAVAILABLE').hint, /apt install tesseract-ocr/);
      assert.match(failed(await none.call('vm_click', { text: 'a' }), 'CAPABILITY_UNAVAILABLE').message, /no OCR engine/);
      assert.match(failed(await none.call('vm_screenshot', { marks: true }), 'CAPABILITY_UNAVAILABLE').hint, /tesseract/);
      const e = failed(await broken.call('vm_find_text', { text: 'a' }), 'CAPABILITY_UNAVAILABLE');
      assert.match(e.message, /tesseract not found/);
      assert.equal(e.hint, 'apt install tesseract-ocr tesseract-ocr-eng');
      assert.equal(none.inputs.length + broken.inputs.length, 0);
    } finally { await none.close(); await broken.close(); }
  });
});
