// Every plugin package has the same shape: the same file name for the same role, the contract
// version as a literal, its version from package.json, and only the contract imported from
// @vmhub/core (no router, screenshot shaping or configuration, so a plugin never needs the MCP
// SDK, sharp or zod). A new adapter or provider is held to this the day it is added.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import type { AdapterPlugin, Capability, ProviderPlugin } from '@vmhub/core';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const packages = readdirSync(join(root, 'packages')).filter((d) => /^(adapter|provider)-/.test(d));

// The contract needs no MCP SDK; this adapter's guest protocol is MCP (Windows-MCP in the VM).
const SPEAKS_MCP_TO_THE_GUEST = new Set(['adapter-windows-cursortouch']);

const PROVIDER_ROLES = ['provider', 'create', 'destroy', 'list', 'ready', 'status'];
const kebab = (cap: Capability) => cap.replace(/_/g, '-');

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
}

async function pluginOf(pkg: string): Promise<AdapterPlugin | ProviderPlugin> {
  const entry = join(root, 'packages', pkg, 'dist', 'index.js');
  assert.ok(existsSync(entry), `${pkg} is built (dist/index.js)`);
  return (await import(pathToFileURL(entry).href)).default as AdapterPlugin | ProviderPlugin;
}

describe('plugin packages: one shape', () => {
  for (const pkg of packages) {
    it(`${pkg}: role files, contract literal, version from package.json, contract-only imports`, async () => {
      const src = join(root, 'packages', pkg, 'src');
      const files = new Set(readdirSync(src));
      const plugin = await pluginOf(pkg);
      const id = plugin.id;
      const need = ['index.ts', 'options.ts'];
      if (plugin.kind === 'provider') {
        need.push(...PROVIDER_ROLES.map((r) => `${id}-${r}.ts`));
        // create() does no I/O (the contract's rule), so the instance says whether it has a channel.
        const instance = plugin.create(undefined, { identityPrefix: 'vmhub-shape-', log: () => undefined });
        if (typeof instance.channel === 'function') need.push(`${id}-channel.ts`);
        if (plugin.goldens() !== undefined) need.push(`${id}-golden.ts`);
      } else {
        // Built on the adapter kit: adapter.ts declares, runtime.ts is the per-lease runtime, and the
        // <id>- prefix marks capability files only (screen-size serves core's bounds checks).
        need.push('adapter.ts', 'runtime.ts');
        const capabilityFiles = new Set(plugin.capabilities.map((cap) => `${id}-${kebab(cap)}.ts`));
        need.push(...capabilityFiles);
        const helpers = [...files].filter((f) => f.startsWith(`${id}-`) && !f.endsWith('.test.ts') && !capabilityFiles.has(f) && f !== `${id}-screen-size.ts`);
        assert.deepEqual(helpers, [], `${pkg}/src: ${helpers.join(', ')} carry the ${id}- prefix but serve no capability: name helpers by role (docs/conformance.md)`);
      }
      const missing = need.filter((f) => !files.has(f));
      assert.deepEqual(missing, [], `${pkg}/src lacks ${missing.join(', ')} (docs/conformance.md: one file name per role)`);

      const manifest = JSON.parse(readFileSync(join(root, 'packages', pkg, 'package.json'), 'utf8'));
      assert.equal(plugin.version, manifest.version, `${pkg}: plugin.version is package.json's`);
      assert.ok(manifest.peerDependencies?.['@vmhub/core'], `${pkg}: @vmhub/core is a peer dependency`);
      for (const heavy of ['@modelcontextprotocol/sdk', 'sharp', 'zod']) {
        if (SPEAKS_MCP_TO_THE_GUEST.has(pkg) && heavy === '@modelcontextprotocol/sdk') continue;
        assert.ok(!manifest.dependencies?.[heavy] && !manifest.peerDependencies?.[heavy], `${pkg} depends on ${heavy}: a plugin needs only the contract`);
      }
      for (const file of sources(src)) {
        const text = readFileSync(file, 'utf8');
        const rel = file.slice(root.length);
        assert.doesNotMatch(text, /from '@vmhub\/core\/(router|screenshot|config)'/, `${rel} imports a server part of @vmhub/core`);
        assert.doesNotMatch(text, /contractVersion:\s*CONTRACT_VERSION/, `${rel}: write the contract version as a literal`);
        assert.doesNotMatch(text, /['"]0\.\d+\.\d+['"]/, `${rel}: a hard-coded version string (read package.json: readPackageVersion)`);
        assert.doesNotMatch(text, /from '@vmhub\/(store|server|reaper|conformance)/, `${rel}: plugins import only @vmhub/core`);
      }
    });
  }

});
