/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and is the plugin. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

describe('windows-cursortouch: built entry', () => {
  it('dist/index.js exports the plugin and the factory', async () => {
    const entry = new URL('../dist/index.js', import.meta.url);
    assert.ok(existsSync(entry), 'dist/index.js is missing: run `pnpm --filter @vmhub/adapter-windows-cursortouch run build` first');
    const mod = await import(entry.href);
    assert.equal(mod.default.kind, 'adapter');
    assert.equal(mod.default.id, 'windows-cursortouch');
    assert.equal(mod.default.capabilities.length, 17);
    const adapter = mod.createWindowsAdapter({ port: 8001 });
    assert.equal(adapter.id, 'windows-cursortouch');
    assert.deepEqual(adapter.verbs.map((v: { verb: string }) => v.verb).sort(), ['windows_mcp_call', 'windows_mcp_tools']);
    assert.throws(() => mod.createWindowsAdapter({ auth_key: 'literal keys are not options' }), /auth_key/);
  });
});
