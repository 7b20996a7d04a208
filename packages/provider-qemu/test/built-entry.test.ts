import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONTRACT_VERSION } from '@vmhub/core';

test('qemu: the built entry (dist) exports the plugin, the golden builders and the templates', async () => {
  const mod = await import('../dist/index.js');
  assert.equal(mod.default.kind, 'provider');
  assert.equal(mod.default.id, 'qemu');
  assert.equal(mod.default.contractVersion, CONTRACT_VERSION);
  assert.deepEqual(mod.default.templates.map((t) => t.id), ['tiny-console', 'tiny-console-agent']);
  assert.deepEqual([...mod.GOLDEN_NAMES], ['tiny-console', 'tiny-console-agent']);
  for (const fn of [mod.buildGolden, mod.buildTinyConsoleGolden, mod.goldenStatus, mod.createQemuProvider]) assert.equal(typeof fn, 'function');
});
