import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failed, fakeVm, frame, ok } from './harness.test.ts';

const windows = [
  { id: '0x1a00003', title: 'Editor', class: 'mousepad', x: 100, y: 50, width: 400, height: 300, focused: true, visible: true },
  { id: '0x1c00007', title: 'Files', class: 'thunar', x: 600, y: 100, width: 300, height: 200, focused: false, visible: true },
];
const capture = () => frame(1000, 700, [255, 255, 255]);

describe('core: router vm_click {window, x, y}', () => {
  it('clicks at the window\'s client origin plus (x, y), by title or id; refuses what it cannot map and does nothing', async () => {
    const vm = await fakeVm({ capture, windows, screenSize: { width: 1000, height: 700 } });
    try {
      const c = ok(await vm.call('vm_click', { target: { window: 'Files', x: 17, y: 23 } }));
      assert.deepEqual([c.screen_x, c.screen_y], [617, 123]);
      ok(await vm.call('vm_click', { window: '0x1a00003', x: 0, y: 0 })); // the older flat form
      assert.deepEqual(vm.inputs.map((i) => [i.args.x, i.args.y]), [[617, 123], [100, 50]]);
      assert.equal(failed(await vm.call('vm_click', { target: { window: 'Nope', x: 1, y: 1 } }), 'NOT_FOUND').code, 'NOT_FOUND');
      assert.match(failed(await vm.call('vm_click', { target: { window: 'Files', x: 300, y: 5 } }), 'INVALID_REQUEST').message, /outside window 0x1c00007's client area \(300×200\)/);
      assert.match(failed(await vm.call('vm_click', { target: { window: 'Files', x: 1, y: 1 }, coordinate_space: 'screen' }), 'INVALID_REQUEST').message, /coordinate_space does not apply/);
      failed(await vm.call('vm_click', { target: { window: 'Files', text: 'x' } }), 'INVALID_REQUEST');
      assert.equal(vm.inputs.length, 2, 'refused calls did nothing');
      // A batch step is checked against its tool's own schema: the window form works there too
      // (its published step shape leaves it out, for the tools/list budget), resolved before any step runs.
      failed(await vm.call('vm_batch', { actions: [{ action: 'click', target: { x: 1, y: 1 } }, { action: 'click', target: { window: 'Nope', x: 1, y: 1 } }] }), 'NOT_FOUND');
      assert.equal(vm.inputs.length, 2, 'a batch with an unknown window ran no step');
      ok(await vm.call('vm_batch', { actions: [{ action: 'click', target: { window: 'Files', x: 1, y: 1 } }] }));
      assert.deepEqual([vm.inputs[2]!.args.x, vm.inputs[2]!.args.y], [601, 101]);
    } finally { await vm.close(); }
  });
});
