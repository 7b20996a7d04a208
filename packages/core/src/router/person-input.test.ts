import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Adapter, OpenSession } from '../adapter.ts';
import { VmhubError } from '../errors.ts';
import { createRouter } from './index.ts';
import type { CallExtra, HumanControl, LeaseBinding, RecordedCall, RouterHost } from './types.ts';

/** One lease a person holds: the session records its input; the host counts the gate's questions and the recorded calls. */
function heldLease(capabilities = ['click', 'type']) {
  const inputs: { kind: string; args: Record<string, unknown> }[] = [];
  const record = (kind: string) => async (_ctx: unknown, args: Record<string, unknown>) => { inputs.push({ kind, args }); };
  const session = { lease_id: 'lease-1', disposed: false, dispose: async () => undefined, click: record('click'), type: record('type'), screenSize: async () => ({ width: 800, height: 600 }) } as unknown as OpenSession;
  const adapter = { kind: 'adapter', id: 'fake', version: '0.0.0', contractVersion: 2, capabilities, verbs: [], open: async () => session } as unknown as Adapter;
  const binding: LeaseBinding = {
    lease_id: 'lease-1', expires_at: new Date(Date.now() + 3600_000).toISOString(), template: { id: 'fake-template', adapter: 'fake' } as never,
    adapter, session, screen: {}, context: { lease_id: 'lease-1', signal: new AbortController().signal } as never,
  };
  const held: HumanControl = { human: true, since: '2026-01-01T00:00:00.000Z' };
  const seen = { asked: 0, recorded: [] as RecordedCall[] };
  const host: RouterHost = {
    settings: { denyTools: [], screenshot: { format: 'png', maxWidth: 1280, maxHeight: 800, maxBytes: 800_000 }, maxFileBytes: 1 << 20, callTimeoutSeconds: 30 },
    sessions: { bind: async () => binding },
    human: { control: () => { seen.asked++; return held; }, takeNote: () => undefined },
    audit: { record: (call) => { seen.recorded.push(call); } },
  };
  return { router: createRouter(host), binding, inputs, seen };
}

const extra = { signal: new AbortController().signal } as CallExtra;

describe('core: Router.personInput, a person\'s take-over input', () => {
  it('goes through while the person holds the lease; the agent\'s own call on it answers HUMAN_CONTROL', async () => {
    const { router, binding, inputs, seen } = heldLease();
    const agent = await router.call('vm_click', { lease_id: 'lease-1', x: 10, y: 20, coordinate_space: 'screen' }, extra);
    assert.equal(agent.isError, true);
    assert.equal((agent.structuredContent as { code: string }).code, 'HUMAN_CONTROL');
    assert.equal((agent.structuredContent as { retryable: boolean }).retryable, true);
    assert.equal(inputs.length, 0, 'the agent\'s click never reached the machine');
    assert.equal(seen.asked, 1);
    assert.equal(seen.recorded.length, 1, 'the agent\'s refused call is on its recording');

    assert.deepEqual(await router.personInput('vm_click', { x: 10, y: 20, coordinate_space: 'screen' }, binding), { screen_x: 10, screen_y: 20 });
    assert.deepEqual(await router.personInput('vm_type', { text: 'hi' }, binding), { typed: 2 });
    assert.deepEqual(inputs, [
      { kind: 'click', args: { x: 10, y: 20, button: 'left', count: 1, modifiers: [] } },
      { kind: 'type', args: { text: 'hi' } },
    ]);
    assert.equal(seen.asked, 1, 'the person\'s input never asks the gate');
    assert.equal(seen.recorded.length, 1, 'nor is it recorded by the router (the live API records it)');
  });

  it('keeps the tool\'s schema, screen check and capability gate', async () => {
    const { router, binding, inputs } = heldLease(['click']);
    const code = (e: unknown) => (VmhubError.is(e) ? e.code : String(e));
    await assert.rejects(router.personInput('vm_click', { x: 10 }, binding), (e) => code(e) === 'INVALID_REQUEST');
    await assert.rejects(router.personInput('vm_click', { x: 900, y: 20, coordinate_space: 'screen' }, binding), (e) => code(e) === 'INVALID_REQUEST' && /off the 800x600 screen/.test((e as Error).message));
    await assert.rejects(router.personInput('vm_type', { text: 'hi' }, binding), (e) => code(e) === 'CAPABILITY_UNAVAILABLE' && /does not provide "type"/.test((e as Error).message));
    assert.equal(inputs.length, 0);
  });
});
