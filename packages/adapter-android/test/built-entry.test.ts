/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and is the plugin. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

describe('android: built entry', () => {
  it('dist/index.js exports the plugin and the factory', async () => {
    const entry = new URL('../dist/index.js', import.meta.url);
    assert.ok(existsSync(entry), 'dist/index.js is missing: run `npx tsc -p tsconfig.build.json` first');
    const mod = await import(entry.href);
    assert.equal(mod.default.kind, 'adapter');
    assert.equal(mod.default.id, 'android');
    assert.equal(mod.default.contractVersion, 2);
    assert.equal(mod.default.capabilities.length, 16);
    assert.ok(!mod.default.capabilities.includes('dispatch'));
    const adapter = mod.createAndroidAdapter({ long_press_ms: 900 });
    assert.equal(adapter.id, 'android');
    assert.throws(() => mod.createAndroidAdapter({ long_press_ms: 1 }), /long_press_ms/);
    assert.throws(() => mod.createAndroidAdapter({ nope: 1 }), /nope|additional/);
  });
});
