/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and is the plugin. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadBuiltPlugin } from '@vmhub/test-kit';

it('android: dist/index.js exports the plugin and the factory', async () => {
  const mod = await loadBuiltPlugin(import.meta.url, { kind: 'adapter', id: 'android', capabilities: 16, verbs: [] });
  assert.ok(!mod.default.capabilities.includes('dispatch'));
  assert.equal(mod.createAndroidAdapter({ long_press_ms: 900 }).id, 'android');
  assert.throws(() => mod.createAndroidAdapter({ long_press_ms: 1 }), /long_press_ms/);
  assert.throws(() => mod.createAndroidAdapter({ nope: 1 }), /nope|additional/);
});
