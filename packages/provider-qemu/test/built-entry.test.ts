import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

test('qemu: the built entry (dist) exports the plugin, the golden builders and the templates', async () => {
  const mod = await import('../dist/index.js');
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(mod.default.kind, 'provider');
  assert.equal(mod.default.id, 'qemu');
  assert.equal(mod.default.contractVersion, 2, 'the contract version is the literal the plugin was written for');
  assert.equal(mod.default.version, pkg.version, 'the version comes from package.json');
  assert.equal(mod.VERSION, pkg.version);
  assert.deepEqual(mod.default.templates.map((t: { id: string }) => t.id), ['tiny-console', 'tiny-console-agent']);
  for (const t of mod.default.templates) assert.doesNotThrow(() => mod.default.checkTemplate(t), `${t.id} passes its own provider_options schema`);
  assert.deepEqual([...mod.GOLDEN_NAMES], ['tiny-console', 'tiny-console-agent']);
  assert.deepEqual([...mod.default.goldens()!.names], ['tiny-console', 'tiny-console-agent'], 'goldens on the provider spec');
  for (const fn of [mod.buildGolden, mod.buildTinyConsoleGolden, mod.goldenStatus, mod.qemuGoldens, mod.createQemuProvider]) assert.equal(typeof fn, 'function');
});
