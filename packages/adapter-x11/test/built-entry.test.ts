/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and is the plugin. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadBuiltPlugin } from '@vmhub/test-kit';

it('x11: dist/index.js exports the plugin and the factory', async () => {
  const verbs = ['get_clipboard', 'mouse_location', 'set_clipboard', 'window_geometry', 'xdotool_search'];
  const mod = await loadBuiltPlugin(import.meta.url, { kind: 'adapter', id: 'x11', capabilities: 19, verbs });
  assert.equal(mod.createX11Adapter({ display: ':9' }).id, 'x11');
});
