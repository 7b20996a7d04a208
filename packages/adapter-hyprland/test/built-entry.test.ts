/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and is the plugin. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadBuiltPlugin } from '@vmhub/test-kit';

it('hyprland: dist/index.js exports the plugin and the factory', async () => {
  const verbs = ['compositor_info', 'get_clipboard', 'list_outputs', 'set_clipboard', 'window_geometry'];
  const mod = await loadBuiltPlugin(import.meta.url, { kind: 'adapter', id: 'hyprland', capabilities: 18, verbs });
  assert.equal(mod.createHyprlandAdapter({ compositor: 'sway' }).id, 'hyprland');
});
