// Every plugin package in this repository, and the adapter template an author copies, has the
// shape @vmhub/conformance's package-shape check asks of any plugin (docs/conformance.md, "The
// package shape"): one file name per role, contract-only imports, no other plugin, no dynamic
// import, the contract a literal and the version package.json's. Plugins load from dist (build
// them first); the template, outside the workspace, from its sources with its bare imports
// resolved from here, as npm install gives a copy of it.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkPackageShape, formatShapeProblems, type PackageShapeOptions } from '@vmhub/conformance/package-shape';

const root = new URL('../../../', import.meta.url);
const template = new URL('examples/adapter-template/', root);
registerHooks({
  resolve: (specifier, context, next) => next(specifier, /^[@\w]/.test(specifier) && !specifier.startsWith('node:') && context.parentURL?.startsWith(template.href) ? { ...context, parentURL: import.meta.url } : context),
});

// The contract needs no MCP SDK; this adapter's guest protocol is MCP (Windows-MCP in the VM).
const SPEAKS_MCP_TO_THE_GUEST: PackageShapeOptions = { allowDependencies: ['@modelcontextprotocol/client'] };

const packages: [string, PackageShapeOptions][] = [
  ...readdirSync(new URL('packages/', root)).filter((d) => /^(adapter|provider)-/.test(d)).map((d): [string, PackageShapeOptions] => [`packages/${d}`, d === 'adapter-windows-cursortouch' ? SPEAKS_MCP_TO_THE_GUEST : {}]),
  ['examples/adapter-template', { entry: 'src/index.ts' }],
];

describe('plugin packages: one shape (@vmhub/conformance/package-shape)', () => {
  it('finds every plugin package and the template', () => assert.ok(packages.length >= 11, packages.map(([p]) => p).join(', ')));
  for (const [pkg, options] of packages) {
    it(`${pkg}: role files, contract-only imports, no other plugin, no dynamic import, versions`, async () => {
      const problems = await checkPackageShape(fileURLToPath(new URL(pkg, root)), options);
      assert.deepEqual(problems, [], `${pkg}:\n${formatShapeProblems(problems)}`);
    });
  }
});
