/**
 * AdapterSession.restored (restored.ts), no compositor: the session the adapter opens has it, and
 * it leaves the runtime as a new machine needs it — no desktop environment, layout or probe
 * remembered, the kept keyboard counted as not started — while dispose can still stop a helper
 * a memory snapshot brought back (holderStarted kept).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testLease } from '@vmhub/test-kit';
import { createHyprlandAdapter, resolveOptions } from '../src/index.ts';
import { restored } from '../src/restored.ts';
import { createRuntime } from '../src/runtime.ts';

const noChannel = { home: '/home/user', exec: async () => { throw new Error('no guest in this test'); }, putFile: async () => undefined, getFile: async () => Buffer.alloc(0), close: async () => undefined };

describe('hyprland: restored()', () => {
  it('the adapter\'s sessions have restored()', async () => {
    const session = await createHyprlandAdapter().open(testLease({ channel: noChannel as never, template: { adapter: 'hyprland' } }));
    assert.equal(typeof session.restored, 'function');
    await session.dispose();
  });

  it('forgets the desktop, layout and probe, and the kept keyboard; keeps holderStarted for dispose', async () => {
    const rt = createRuntime(resolveOptions({}));
    rt.facts.set('desktop', { env: { WAYLAND_DISPLAY: 'wayland-1' } } as never);
    rt.facts.set('layout', {} as never);
    rt.facts.set('probe', {} as never);
    rt.holderStarted = rt.keyboardStarted = true;
    restored(rt);
    assert.equal(rt.facts.peek('desktop'), undefined);
    assert.equal(rt.facts.peek('layout'), undefined);
    assert.equal(rt.facts.peek('probe'), undefined);
    assert.equal(rt.keyboardStarted, false);
    assert.equal(rt.holderStarted, true);
  });
});
