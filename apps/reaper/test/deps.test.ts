/**
 * The reaper must keep working when the server, the router and every adapter are broken or
 * absent: it may depend on the store, the providers, @vmhub/core's root entry (the contract) and
 * its /config entry (configuration and plugin discovery, shared with the server), and Node only.
 */
import assert from 'node:assert/strict';
import { builtinModules } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ALLOWED_DEPENDENCY = (name: string) => name === '@vmhub/store' || name === '@vmhub/core' || /^@vmhub\/provider-[a-z0-9-]+$/.test(name);
const ALLOWED = (spec: string) =>
  spec === '@vmhub/store' || spec === '@vmhub/core' || spec === '@vmhub/core/config' || /^@vmhub\/provider-[a-z0-9-]+$/.test(spec) ||
  spec.startsWith('node:') || builtinModules.includes(spec) || spec.startsWith('./') || spec.startsWith('../');

export function importsOf(source: string): string[] {
  const specs: string[] = [];
  const patterns = [
    /\bimport\s+(?:type\s+)?[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bexport\s+[^'"]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
    /\brequire\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) specs.push(m[1]);
  return specs;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|mts|js|mjs|cjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

describe('reaper: dependency boundary', () => {
  it('package.json depends only on the store, core and providers', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies', 'bundledDependencies']) {
      const names = Array.isArray(pkg[field]) ? pkg[field] : Object.keys(pkg[field] ?? {});
      for (const name of names) assert.ok(ALLOWED_DEPENDENCY(name), `apps/reaper/package.json ${field} has "${name}": the reaper may depend only on @vmhub/store, @vmhub/core and @vmhub/provider-*`);
    }
  });

  it('no file in src imports anything else (not the router, the server, an adapter or another npm package)', () => {
    const files = sourceFiles(join(root, 'src'));
    assert.ok(files.length > 5, 'found the sources');
    for (const file of files) {
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        assert.ok(ALLOWED(spec), `${file.slice(root.length + 1)} imports "${spec}": the reaper may import only @vmhub/store, @vmhub/core and @vmhub/core/config (not /router or /screenshot), @vmhub/provider-* and node built-ins`);
      }
    }
  });

  it('the checker itself catches forbidden imports', () => {
    const bad = ["import { x } from '@vmhub/core/router';", "import { shapeScreenshot } from '@vmhub/core/screenshot';", "import '@vmhub/server';", "const a = await import('@vmhub/adapter-x11');", "export * from 'kysely';", "import type { T } from '@vmhub/conformance';"];
    for (const src of bad) assert.ok(importsOf(src).some((s) => !ALLOWED(s)), src);
    assert.ok(importsOf("import { Store } from '@vmhub/store';\nimport { loadConfig } from '@vmhub/core/config';\nimport { readFileSync } from 'node:fs';").every(ALLOWED));
  });
});
