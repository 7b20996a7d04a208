// pointer.ts: the last point the agent or the person moved the pointer to, and the agent's last click.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RecordedCall } from '@vmhub/core/router';
import { LeaseSession } from '../sessions/lease-session.ts';
import { LeasePointer, pointerOf } from './pointer.ts';

function call(tool: string, args: Record<string, unknown>, structured: Record<string, unknown> = {}, outcome: 'ok' | 'error' = 'ok'): RecordedCall {
  return { tool, outcome, at: '2026-12-06T10:00:00.000Z', duration_ms: 40, lease_id: 'l', args, result: { content: [], structuredContent: structured } } as unknown as RecordedCall;
}

describe('server: live view pointer marks', () => {
  it('an agent click is where its result says on the screen (image coordinates already mapped)', () => {
    const p = new LeasePointer();
    p.agent(call('vm_click', { x: 10, y: 20 }, { screen_x: 321, screen_y: 123 }));
    assert.deepEqual(p.agentClick, { x: 321, y: 123, at: '2026-12-06T10:00:00.040Z', actor: 'agent' });
    assert.deepEqual(p.last, p.agentClick);
  });

  it('failed calls and image-space drags leave the marks alone; screen-space drags and scrolls move the pointer only', () => {
    const p = new LeasePointer();
    p.agent(call('vm_click', { x: 1, y: 1 }, { code: 'HUMAN_CONTROL' }, 'error'));
    p.agent(call('vm_drag', { from: { x: 1, y: 1 }, to: { x: 5, y: 5 } }));
    // (read through a function: an assertion narrows a property for good)
    const last = () => (p.last ? [p.last.x, p.last.y, p.last.actor] : undefined);
    assert.equal(last(), undefined);
    p.agent(call('vm_drag', { from: { x: 1, y: 1 }, to: { x: 50, y: 60 }, coordinate_space: 'screen' }));
    assert.deepEqual(last(), [50, 60, 'agent']);
    p.agent(call('vm_scroll', { x: 7, y: 8, direction: 'down', coordinate_space: 'screen' }));
    assert.deepEqual(last(), [7, 8, 'agent']);
    assert.equal(p.agentClick, undefined, 'no click yet');
    p.moved('human', { x: 9.6, y: 3 });
    assert.deepEqual(last(), [10, 3, 'human']);
  });

  it('one state per lease session, ended with it', async () => {
    const open = () => new LeaseSession('l1', { identity: 'vmhub-t-l1', external_id: 'e' }, { id: 't', provider: 'p', adapter: 'a', os: 'linux', golden: 'g' }, undefined, undefined);
    const a = open();
    assert.equal(pointerOf(a), pointerOf(a));
    assert.notEqual(pointerOf(a), pointerOf(open()));
    await a.dispose('test');
    assert.throws(() => pointerOf(a), /has ended/);
  });
});
