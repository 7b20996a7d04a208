/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and is the plugin. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';

describe('macos: built entry', () => {
  it('dist/index.js exports the plugin and the factory', async () => {
    const entry = new URL('../dist/index.js', import.meta.url);
    assert.ok(existsSync(entry), 'dist/index.js is missing: run `pnpm --filter @vmhub/adapter-macos run build` first');
    const mod = await import(entry.href);
    assert.deepEqual([mod.default.kind, mod.default.id, mod.default.contractVersion], ['adapter', 'macos', 2]);
    assert.deepEqual([...mod.default.capabilities].sort(), ['click', 'clone_repo', 'close', 'drag', 'exec', 'focus', 'get_file', 'key', 'launch', 'list_windows', 'put_file', 'screenshot', 'scroll', 'type']);
    const adapter = mod.createMacosAdapter({ ssh_user: 'lume' });
    assert.equal(adapter.id, 'macos');
    assert.deepEqual(adapter.verbs, []);
  });
});
