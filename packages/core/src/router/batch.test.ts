import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeVm, frame, ok, failed, word } from './harness.test.ts';

const screen = () => frame(400, 300, [0, 0, 0]);

describe('core: router vm_batch', () => {
  it('runs every valid step in order through the tools\' handlers', async () => {
    const vm = await fakeVm({ capture: screen, ocr: () => [word('Run', 100, 100, 40, 20)], screenSize: { width: 400, height: 300 } });
    try {
      const r = await vm.call('vm_batch', {
        actions: [
          { action: 'click', x: 10, y: 20, coordinate_space: 'screen' },
          { action: 'type', text: 'ls\n' },
          { action: 'key', keys: 'ctrl+l' },
          { action: 'wait', seconds: 0 },
          { action: 'click', text: 'run' },
          { action: 'wait_for', for: 'settle', settle_ms: 100, timeout_seconds: 5 },
          { action: 'scroll', x: 5, y: 5, direction: 'down', coordinate_space: 'screen' },
        ],
        screenshot: true,
      });
      const s = ok(r);
      assert.equal(s.completed, 7);
      assert.deepEqual(s.results.map((x: any) => [x.action, x.ok]), [['click', true], ['type', true], ['key', true], ['wait', true], ['click', true], ['wait_for', true], ['scroll', true]]);
      assert.deepEqual(vm.inputs.map((i) => i.kind), ['click', 'type', 'key', 'click', 'scroll']);
      assert.deepEqual([vm.inputs[3]!.args.x, vm.inputs[3]!.args.y], [120, 110]);
      assert.equal(s.results[4].result.text, 'Run');
      assert.equal(s.screenshot.width, 400);
      assert.ok(r.content!.some((c) => c.type === 'image'), 'the final screenshot is attached');
      assert.deepEqual(vm.screen.latest?.screen, { width: 400, height: 300 }, 'and it is the new mapping');
    } finally { await vm.close(); }
  });
  it('an invalid last step runs nothing, naming the step', async () => {
    const vm = await fakeVm({ capture: screen, screenSize: { width: 400, height: 300 } });
    try {
      const bad = [
        [{ action: 'scroll', x: 5, y: 5 }, /^actions\[3\] \(scroll\): missing field "direction"/],
        [{ action: 'click', x: 500, y: 5, coordinate_space: 'screen' }, /^actions\[3\] \(click\): click point \(500, 5\) is off the 400x300 screen/],
        [{ action: 'click', x: -1, y: 5, coordinate_space: 'screen' }, /^actions\[3\] \(click\)/],
        [{ action: 'wait', seconds: 31 }, /^actions\[3\] \(wait\)/],
        [{ action: 'wait_for', for: 'text' }, /^actions\[3\] \(wait_for\): for "text" needs text/],
        [{ action: 'click', mark: 2 }, /^actions\[3\] \(click\): mark 2: .*vm_screenshot \{marks: true\}/],
        [{ action: 'type', text: 'a\u0000b' }, /^actions\[3\] \(type\): text contains U\+0000/],
        [{ action: 'key', keys: 'Return', extra: 1 }, /^actions\[3\] \(key\): unknown field "extra"/],
      ] as const;
      for (const [step, message] of bad) {
        const e = failed(await vm.call('vm_batch', { actions: [{ action: 'type', text: 'rm -rf /tmp/x\n' }, { action: 'key', keys: 'Return' }, { action: 'click', x: 1, y: 1, coordinate_space: 'screen' }, step] }), 'INVALID_REQUEST');
        assert.match(e.message, message);
      }
      assert.equal(vm.inputs.length, 0, 'no step ran');
    } finally { await vm.close(); }
  });
  it('refuses a step whose capability or OCR is missing, before anything runs', async () => {
    const vm = await fakeVm({ capture: screen, ocr: false, capabilities: ['screenshot', 'type', 'click'], screenSize: { width: 400, height: 300 } });
    try {
      assert.match(failed(await vm.call('vm_batch', { actions: [{ action: 'type', text: 'a' }, { action: 'scroll', x: 1, y: 1, direction: 'up' }] }), 'CAPABILITY_UNAVAILABLE').message, /^actions\[1\] \(scroll\): .*"scroll"/);
      assert.match(failed(await vm.call('vm_batch', { actions: [{ action: 'type', text: 'a' }, { action: 'click', text: 'OK' }] }), 'CAPABILITY_UNAVAILABLE').message, /^actions\[1\] \(click\): .*no OCR engine/);
      assert.match(failed(await vm.call('vm_batch', { actions: [{ action: 'type', text: 'a' }, { action: 'wait_for', for: 'text', text: 'x' }] }), 'CAPABILITY_UNAVAILABLE').message, /^actions\[1\] \(wait_for\)/);
      assert.equal(vm.inputs.length, 0);
    } finally { await vm.close(); }
  });
  it('stops at a failing middle step and reports the steps that ran', async () => {
    const vm = await fakeVm({ capture: screen, failing: ['type'], screenSize: { width: 400, height: 300 } });
    try {
      const s = ok(await vm.call('vm_batch', { actions: [{ action: 'key', keys: 'a' }, { action: 'type', text: 'x' }, { action: 'key', keys: 'b' }] }));
      assert.equal(s.completed, 1);
      assert.deepEqual(s.results.map((x: any) => [x.action, x.ok, x.error?.code]), [['key', true, undefined], ['type', false, 'INTERNAL']]);
      assert.deepEqual(vm.inputs.map((i) => i.args.keys), ['a']);
    } finally { await vm.close(); }
  });
  it('a wait_for that is not satisfied stops the batch with TIMEOUT', async () => {
    const vm = await fakeVm({ capture: screen, screenSize: { width: 400, height: 300 } });
    try {
      const s = ok(await vm.call('vm_batch', { actions: [{ action: 'key', keys: 'a' }, { action: 'wait_for', for: 'change', timeout_seconds: 0.3 }, { action: 'key', keys: 'b' }], screenshot: true }));
      assert.equal(s.completed, 1);
      assert.equal(s.results[1].ok, false);
      assert.equal(s.results[1].error.code, 'TIMEOUT');
      assert.equal(s.results[1].result.satisfied, false);
      assert.equal(s.results.length, 2);
      assert.deepEqual(vm.inputs.map((i) => i.args.keys), ['a']);
      assert.equal(s.screenshot.width, 400, 'the final screenshot still shows where it stopped');
    } finally { await vm.close(); }
  });
});
