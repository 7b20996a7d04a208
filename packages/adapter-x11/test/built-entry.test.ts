/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and is the plugin. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

describe('x11: built entry', () => {
  it('dist/index.js exports the plugin and the factory', async () => {
    const entry = new URL('../dist/index.js', import.meta.url);
    assert.ok(existsSync(entry), 'dist/index.js is missing: run `npx tsc -p tsconfig.build.json` first');
    const mod = await import(entry.href);
    assert.equal(mod.default.kind, 'adapter');
    assert.equal(mod.default.id, 'x11');
    assert.equal(mod.default.capabilities.length, 17);
    const adapter = mod.createX11Adapter({ display: ':9' });
    assert.equal(adapter.id, 'x11');
    assert.deepEqual(adapter.verbs.map((v: { verb: string }) => v.verb).sort(), ['get_clipboard', 'mouse_location', 'set_clipboard', 'window_geometry', 'xdotool_search']);
  });
});
