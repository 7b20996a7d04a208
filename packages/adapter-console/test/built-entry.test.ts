import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LeaseContext } from '@vmhub/core';
import { loadBuiltPlugin } from '@vmhub/test-kit';

test('console: the built entry (dist) declares exactly what it implements', async () => {
  const capabilities = ['click', 'clone_repo', 'drag', 'exec', 'get_file', 'key', 'put_file', 'screenshot', 'scroll', 'type'];
  const mod = await loadBuiltPlugin(import.meta.url, { kind: 'adapter', id: 'console', capabilities });
  assert.equal(mod.VERSION, mod.default.version);
  const adapter = mod.default.create({});
  const lease = { lease_id: 'l1', machine: { identity: 'vmhub-x-l1', external_id: 'x' }, template: { id: 't', provider: 'qemu', adapter: 'console', os: 'linux', golden: '/g' }, channel: async () => { throw new Error('none'); }, console: async () => { throw new Error('none'); }, connect: async () => { throw new Error('none'); }, forward: async () => { throw new Error('none'); } } as LeaseContext;
  const session = await adapter.open(lease);
  const methods = session as unknown as Record<string, unknown>;
  for (const m of ['screenshot', 'screenSize', 'type', 'key', 'click', 'drag', 'scroll', 'putFile', 'getFile', 'exec', 'cloneRepo', 'probe']) assert.equal(typeof methods[m], 'function', m);
  for (const m of ['inspect', 'listWindows', 'focus', 'close', 'launch', 'paste', 'dispatch']) assert.equal(typeof methods[m], 'undefined', m);
  await session.dispose();
  assert.equal(session.disposed, true);
});
