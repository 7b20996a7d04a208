/**
 * The package.json rules: the plugin's version is the package's, @vmhub/core is a peer
 * dependency, no heavy dependency (a plugin needs only the contract), no other plugin.
 */
import type { VmhubPlugin } from '@vmhub/core';
import { isPluginPackage } from './sources.ts';
import type { ShapeProblem } from './types.ts';

export interface PackageManifest {
  name?: string;
  version?: string;
  main?: string;
  exports?: unknown;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** What the router and the server need; a plugin gets them, if at all, as dev dependencies. */
export const HEAVY_DEPENDENCIES = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', '@modelcontextprotocol/client', '@modelcontextprotocol/core', 'sharp', 'zod'] as const;

export function manifestProblems(manifest: PackageManifest, plugins: readonly VmhubPlugin[], allow: ReadonlySet<string>): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  const file = 'package.json';
  for (const plugin of plugins) {
    if (plugin.version !== manifest.version) problems.push({ rule: 'version', file, message: `plugin "${plugin.id}" says version ${JSON.stringify(plugin.version)}, package.json ${JSON.stringify(manifest.version)}`, fix: 'set version: readPackageVersion(import.meta.url) (from @vmhub/core) instead of typing it' });
  }
  if (!manifest.peerDependencies?.['@vmhub/core']) problems.push({ rule: 'peer-core', file, message: '@vmhub/core is not a peer dependency', fix: 'move @vmhub/core to peerDependencies with a wide range (">=0.2.0 <1.0.0"), and to devDependencies for your tests' });
  const runtime = { ...manifest.optionalDependencies, ...manifest.dependencies, ...manifest.peerDependencies };
  for (const heavy of HEAVY_DEPENDENCIES) {
    if (runtime[heavy] && !allow.has(heavy)) problems.push({ rule: 'heavy-dependency', file, message: `depends on ${heavy}: a plugin needs only the contract (@vmhub/core's root entry)`, fix: `remove ${heavy} from dependencies (a devDependency if your tests need it)` });
  }
  for (const name of Object.keys(runtime)) {
    if (name !== manifest.name && isPluginPackage(name)) problems.push({ rule: 'plugin-import', file, message: `depends on the plugin ${name}`, fix: `remove ${name} from dependencies: plugins meet only through core (a devDependency if a test runs on it)` });
  }
  return problems;
}
