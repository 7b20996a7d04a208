/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and is the plugin. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadBuiltPlugin } from '@vmhub/test-kit';

it('macos: dist/index.js exports the plugin and the factory', async () => {
  const capabilities = ['click', 'clone_repo', 'close', 'drag', 'exec', 'focus', 'get_file', 'key', 'launch', 'list_windows', 'put_file', 'screenshot', 'scroll', 'type'];
  const mod = await loadBuiltPlugin(import.meta.url, { kind: 'adapter', id: 'macos', capabilities, verbs: [] });
  assert.equal(mod.createMacosAdapter({ ssh_user: 'lume' }).id, 'macos');
});
