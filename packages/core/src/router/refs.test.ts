import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InspectRequest } from '../adapter.ts';
import type { ElementNode } from '../shapes.ts';
import { failed, fakeVm, frame, ok } from './harness.test.ts';

const tree: ElementNode = {
  role: 'frame', name: 'Form', x: 0, y: 0, width: 800, height: 600, children: [
    { role: 'label', name: 'no bounds' },
    { role: 'entry', name: 'Email', x: 100, y: 100, width: 200, height: 30 },
    { role: 'panel', x: 0, y: 300, width: 800, height: 300, children: [
      { role: 'push button', name: 'Submit', x: 350, y: 500, width: 100, height: 40 },
      { role: 'paragraph', text: 'Row 1', x: 10, y: 310, width: 300, height: 20 },
    ] },
  ],
};
const capture = () => frame(800, 600, [255, 255, 255]);

describe('core: router vm_inspect refs, vm_click {ref}, vm_type {ref}', () => {
  it('refs on elements with bounds, in reading order; click and type act on the element\'s centre', async () => {
    const seen: InspectRequest[] = [];
    const vm = await fakeVm({ capture, inspect: async (r) => { seen.push(r); return { source: 'fake', tree }; } });
    try {
      assert.match(failed(await vm.call('vm_click', { ref: 'e1' }), 'INVALID_REQUEST').message, /call vm_inspect first/);
      assert.match(failed(await vm.call('vm_type', { ref: 'e1', text: 'x' }), 'INVALID_REQUEST').message, /no element refs yet/);
      assert.equal(vm.inputs.length, 0, 'a refused call did nothing');
      const s = ok(await vm.call('vm_inspect', {}));
      assert.deepEqual(seen[0], { max_depth: 50, scope: 'window', max_nodes: 500, timeout_ms: 3000 }, 'the defaults reach the adapter');
      assert.equal(s.nodes, 6);
      assert.equal(s.truncated, undefined);
      assert.equal(s.scope, 'window');
      assert.equal(s.tree.ref, 'e1');
      assert.equal(s.tree.children[0].ref, undefined, 'no bounds, no ref');
      assert.deepEqual([s.tree.children[1].ref, s.tree.children[2].ref, s.tree.children[2].children[0].ref, s.tree.children[2].children[1].ref], ['e2', 'e3', 'e4', 'e5']);
      assert.equal(s.tree.children[2].children[1].text, 'Row 1');
      const c = ok(await vm.call('vm_click', { ref: 'e4' }));
      assert.deepEqual([c.screen_x, c.screen_y, c.text], [400, 520, 'Submit']);
      ok(await vm.call('vm_type', { ref: 'e2', text: 'a@b.c' }));
      assert.deepEqual(vm.inputs.map((i) => [i.kind, i.args.x ?? i.args.text]), [['click', 400], ['click', 200], ['type', 'a@b.c']], 'vm_type {ref} clicks the field first, then types');
      assert.deepEqual([vm.inputs[1]!.args.x, vm.inputs[1]!.args.y], [200, 115]);
      assert.match(failed(await vm.call('vm_click', { ref: 'e9' }), 'INVALID_REQUEST').message, /not among the latest vm_inspect's refs \(e1\.\.e5\)/);
      failed(await vm.call('vm_click', { ref: 'button' }), 'INVALID_REQUEST');
      failed(await vm.call('vm_click', { ref: 'e1', x: 1, y: 2 }), 'INVALID_REQUEST');
    } finally { await vm.close(); }
  });

  it('the node budget cuts the tree with truncated and reason; an adapter\'s own cut passes through; the next inspect replaces the refs', async () => {
    let cut: 'time' | undefined;
    const vm = await fakeVm({ capture, inspect: async () => ({ source: 'fake', tree, ...(cut ? { truncated: cut } : {}) }) });
    try {
      const s = ok(await vm.call('vm_inspect', { max_nodes: 3, scope: 'desktop' }));
      assert.deepEqual([s.nodes, s.truncated, s.reason], [3, true, 'nodes']);
      assert.equal(vm.screen.refs!.size, 2, 'refs only for what was kept');
      failed(await vm.call('vm_click', { ref: 'e4' }), 'INVALID_REQUEST');
      cut = 'time';
      const t = ok(await vm.call('vm_inspect', {}));
      assert.deepEqual([t.nodes, t.truncated, t.reason], [6, true, 'time']);
      ok(await vm.call('vm_click', { ref: 'e4' }));
    } finally { await vm.close(); }
  });

  it('an adapter that never answers: the call answers after its time budget and a grace, empty and truncated by time', async () => {
    const vm = await fakeVm({ capture, inspect: () => new Promise(() => undefined) });
    try {
      const t0 = Date.now();
      const s = ok(await vm.call('vm_inspect', { timeout_seconds: 0.5 }));
      const ms = Date.now() - t0;
      assert.ok(ms >= 2400 && ms < 5000, `${ms} ms`);
      assert.deepEqual([s.nodes, s.truncated, s.reason], [1, true, 'time']);
    } finally { await vm.close(); }
  });
});
