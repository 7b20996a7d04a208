import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadBuiltPlugin } from '@vmhub/test-kit';

test('qemu: the built entry (dist) exports the plugin, the golden builders and the templates', async () => {
  const mod = await loadBuiltPlugin(import.meta.url, { kind: 'provider', id: 'qemu' });
  assert.equal(mod.VERSION, mod.default.version);
  assert.deepEqual(mod.default.templates.map((t: { id: string }) => t.id), ['tiny-console', 'tiny-console-agent']);
  for (const t of mod.default.templates) assert.doesNotThrow(() => mod.default.checkTemplate(t), `${t.id} passes its own provider_options schema`);
  assert.deepEqual([...mod.GOLDEN_NAMES], ['tiny-console', 'tiny-console-agent']);
  assert.deepEqual([...mod.default.goldens()!.names], ['tiny-console', 'tiny-console-agent'], 'goldens on the provider spec');
  for (const fn of [mod.buildGolden, mod.buildTinyConsoleGolden, mod.goldenStatus, mod.qemuGoldens, mod.createQemuProvider]) assert.equal(typeof fn, 'function');
});
