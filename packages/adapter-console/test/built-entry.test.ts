import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONTRACT_VERSION } from '@vmhub/core';

test('console: the built entry (dist) declares exactly what it implements', async () => {
  const mod = await import('../dist/index.js');
  assert.equal(mod.default.kind, 'adapter');
  assert.equal(mod.default.id, 'console');
  assert.equal(mod.default.contractVersion, CONTRACT_VERSION);
  assert.deepEqual([...mod.default.capabilities].sort(), ['click', 'clone_repo', 'drag', 'exec', 'get_file', 'key', 'put_file', 'screenshot', 'scroll', 'type']);
  const adapter = mod.default.create({});
  for (const m of ['inspect', 'listWindows', 'focus', 'close', 'launch', 'paste']) assert.equal(typeof (adapter as unknown as Record<string, unknown>)[m], 'undefined', m);
});
