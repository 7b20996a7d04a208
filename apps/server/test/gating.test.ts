// Capability gating for every VM tool: a lease whose adapter declares nothing answers
// CAPABILITY_UNAVAILABLE naming the adapter and the capability, for each of the 17 VM tools.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CAPABILITIES } from '@vmhub/core';
import { errorCode, stdioSuite, waitReady } from './harness.ts';

const VM_TOOL_ARGS: Record<string, Record<string, unknown>> = {
  vm_screenshot: {}, vm_inspect: {}, vm_list_windows: {}, vm_focus: { window: 'w1' }, vm_close: { window: 'w1' },
  vm_launch: { app: 'xterm' }, vm_click: { x: 1, y: 1, coordinate_space: 'screen' }, vm_type: { text: 'a' }, vm_key: { keys: 'Return' },
  vm_paste: { text: 'a' }, vm_drag: { from: { x: 1, y: 1 }, to: { x: 2, y: 2 }, coordinate_space: 'screen' }, vm_scroll: { x: 1, y: 1, direction: 'down', coordinate_space: 'screen' },
  vm_dispatch: { verb: 'echo', args: {} }, vm_put_file: { path: '/tmp/a', content: 'a' }, vm_get_file: { path: '/tmp/a' },
  vm_clone_repo: { url: 'https://example.invalid/r.git' }, vm_exec: { command: ['true'] },
};
const CAPABILITY: Record<string, string> = { vm_list_windows: 'list_windows', vm_put_file: 'put_file', vm_get_file: 'get_file', vm_clone_repo: 'clone_repo' };

const suite = stdioSuite();

it('server: every VM tool is gated on the lease adapter\'s capabilities', async () => {
  const created = await suite.s.call('vm_lease_create', { template: 'fake-stub' });
  const lease = await waitReady(suite.s, created.structuredContent.lease_id);
  assert.equal(lease.status, 'ready');
  assert.equal(Object.keys(VM_TOOL_ARGS).length, 17);
  for (const [tool, args] of Object.entries(VM_TOOL_ARGS)) {
    const r = await suite.s.call(tool, { lease_id: lease.lease_id, ...args });
    assert.equal(errorCode(r), 'CAPABILITY_UNAVAILABLE', `${tool}: ${JSON.stringify(r.structuredContent)}`);
    assert.equal(r.structuredContent.retryable, false);
    assert.match(r.structuredContent.message, /adapter "stub"/, `${tool} names the adapter`);
    const cap = CAPABILITY[tool] ?? tool.replace('vm_', '');
    assert.match(r.structuredContent.message, new RegExp(`"${cap}"`), `${tool} names the capability`);
    assert.ok(r.structuredContent.hint.length > 10);
  }
  const caps = await suite.s.call('vm_capabilities', { lease_id: lease.lease_id });
  // Only what the fake provider does to the machine itself; nothing of the stub adapter.
  assert.deepEqual(caps.structuredContent.capabilities, ['restart', 'stats', 'logs']);
  // Every adapter capability unavailable (the provider's own — snapshot, workspace… — are its business).
  assert.deepEqual(caps.structuredContent.unavailable.map((u: { capability: string }) => u.capability).filter((c: string) => (CAPABILITIES as readonly string[]).includes(c)).sort(), [...CAPABILITIES].sort());
  await suite.s.call('vm_lease_release', { lease_id: lease.lease_id });
});
