/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and is the plugin. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadBuiltPlugin } from '@vmhub/test-kit';

it('windows-cursortouch: dist/index.js exports the plugin and the factory', async () => {
  const mod = await loadBuiltPlugin(import.meta.url, { kind: 'adapter', id: 'windows-cursortouch', capabilities: 17, verbs: ['windows_mcp_call', 'windows_mcp_tools'] });
  assert.equal(mod.createWindowsAdapter({ port: 8001 }).id, 'windows-cursortouch');
  assert.throws(() => mod.createWindowsAdapter({ auth_key: 'literal keys are not options' }), /auth_key/);
});
