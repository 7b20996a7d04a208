/**
 * The built entry of a plugin package, loaded as a server loads it (`dist/index.js`): one check
 * for every adapter's and provider's built-entry test.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** A built entry: the plugin as its default export, the package's other exports beside it. */
export interface BuiltEntry {
  // Loaded at run time, untyped, as a server loads it.
  default: Record<string, any>;
  [name: string]: any;
}

/** What the built plugin must be. */
export interface ExpectedPlugin {
  kind: 'adapter' | 'provider';
  id: string;
  /** The contract version it was written for, a literal. Default 2. */
  contractVersion?: number;
  /** An adapter's declared capabilities: how many, or which (in any order). */
  capabilities?: number | readonly string[];
  /** An adapter's vm_dispatch verbs, by name (in any order). */
  verbs?: readonly string[];
}

/**
 * Load the built entry of the package `from` (a test's `import.meta.url`) lies in, and assert its
 * default export is the plugin `expected` describes, carrying package.json's version. Fails with
 * the build command when dist/index.js is missing. Returns the entry for the package's own checks.
 */
export async function loadBuiltPlugin(from: string, expected: ExpectedPlugin): Promise<BuiltEntry> {
  let dir = dirname(fileURLToPath(from));
  while (!existsSync(join(dir, 'package.json'))) {
    assert.notEqual(dirname(dir), dir, `no package.json above ${from}`);
    dir = dirname(dir);
  }
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
  const entry = join(dir, 'dist', 'index.js');
  assert.ok(existsSync(entry), `dist/index.js is missing: run \`pnpm --filter ${pkg.name} run build\` first`);
  const mod = (await import(pathToFileURL(entry).href)) as BuiltEntry;
  assert.deepEqual([mod.default.kind, mod.default.id], [expected.kind, expected.id], 'the default export is the plugin');
  assert.equal(mod.default.contractVersion, expected.contractVersion ?? 2, 'the contract version is the literal the plugin was written for');
  assert.equal(mod.default.version, pkg.version, 'the version comes from package.json');
  const { capabilities, verbs } = expected;
  if (typeof capabilities === 'number') assert.equal(mod.default.capabilities.length, capabilities, 'the number of declared capabilities');
  else if (capabilities) assert.deepEqual([...mod.default.capabilities].sort(), [...capabilities].sort(), 'the declared capabilities');
  if (verbs) assert.deepEqual(mod.default.verbs.map((v: { verb: string }) => v.verb).sort(), [...verbs].sort(), 'the verbs');
  return mod;
}
