/** The published entry (dist/, built by `tsc -p tsconfig.build.json`) loads and exports the channel. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

describe('channel-adb: built entry', () => {
  it('dist/index.js exports openAdbChannel, and adbkit loads as the ESM default of its CJS default', async () => {
    const entry = new URL('../dist/index.js', import.meta.url);
    assert.ok(existsSync(entry), 'dist/index.js is missing: run `npx tsc -p tsconfig.build.json` first');
    const mod = await import(entry.href);
    assert.equal(typeof mod.openAdbChannel, 'function');
    assert.equal(mod.shQuote("it's"), `'it'\\''s'`);
    const adbkit = (await import('@devicefarmer/adbkit')) as unknown as { default: { default: { createClient: unknown } } };
    assert.equal(typeof adbkit.default.default.createClient, 'function');
  });
});
