/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and is the plugin. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

describe('hyprland: built entry', () => {
  it('dist/index.js exports the plugin and the factory', async () => {
    const entry = new URL('../dist/index.js', import.meta.url);
    assert.ok(existsSync(entry), 'dist/index.js is missing: run `pnpm --filter @vmhub/adapter-hyprland run build` first');
    const mod = await import(entry.href);
    assert.equal(mod.default.kind, 'adapter');
    assert.equal(mod.default.id, 'hyprland');
    assert.equal(mod.default.contractVersion, 2);
    assert.equal(mod.default.capabilities.length, 17);
    const adapter = mod.createHyprlandAdapter({ compositor: 'sway' });
    assert.equal(adapter.id, 'hyprland');
    assert.deepEqual(adapter.verbs.map((v: { verb: string }) => v.verb).sort(), ['compositor_info', 'get_clipboard', 'list_outputs', 'set_clipboard', 'window_geometry']);
  });
});
