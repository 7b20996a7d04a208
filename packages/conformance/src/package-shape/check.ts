/**
 * checkPackageShape(dir): whether a plugin package has the shape every vmhub plugin has — one
 * file name per role, the contract imported and nothing else of vmhub's, no other plugin, no
 * dynamic import, the contract version a literal and the package version from package.json.
 * Every problem names the file and the change that makes it pass.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { VmhubPlugin } from '@vmhub/core';
import { entryOf, factsOf, importPlugins, type PluginFacts } from './load.ts';
import { manifestProblems, type PackageManifest } from './manifest.ts';
import { roleProblems } from './roles.ts';
import { sourceFiles, sourceProblems } from './sources.ts';
import type { PackageShapeOptions, ShapeProblem } from './types.ts';

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function checkPackageShape(dir: string, options: PackageShapeOptions = {}): Promise<ShapeProblem[]> {
  const root = resolve(dir);
  if (!existsSync(resolve(root, 'package.json'))) return [{ rule: 'load', file: 'package.json', message: `${root} has no package.json`, fix: 'run the check on the plugin package\'s folder' }];
  if (!existsSync(resolve(root, 'src'))) return [{ rule: 'role-file', file: 'src/', message: 'the package has no src/ folder', fix: 'keep the plugin\'s sources under src/ (src/index.ts its entry), built to dist/' }];
  const manifest = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as PackageManifest;
  const problems: ShapeProblem[] = [];
  const files = sourceFiles(root);
  for (const file of files) problems.push(...sourceProblems(root, file, manifest));

  let plugins: VmhubPlugin[] = [];
  try {
    plugins = options.plugin ? [options.plugin].flat() : await importPlugins(root, options.entry ?? entryOf(manifest));
  } catch (err) {
    problems.push({ rule: 'load', file: options.entry ?? entryOf(manifest), message: `cannot load the plugin: ${reason(err)}`, fix: 'export default the plugin from the package\'s entry and build it; the role rules need the plugin' });
  }
  problems.push(...manifestProblems(manifest, plugins, new Set(options.allowDependencies ?? [])));
  const topLevel = files.filter((f) => /^src\/[^/]+$/.test(f)).map((f) => f.slice('src/'.length));
  for (const plugin of plugins) {
    let facts: PluginFacts;
    try {
      facts = await factsOf(plugin, options.options);
    } catch (err) {
      problems.push({ rule: 'load', file: 'src/index.ts', message: `${plugin.kind} "${plugin.id}": create()${plugin.kind === 'adapter' ? ' and open()' : ''} without I/O failed: ${reason(err)}`, fix: 'create() and open() must do no I/O (connect lazily, on the first call that needs it); pass the options create() needs with `options`' });
      continue;
    }
    problems.push(...roleProblems(facts, topLevel));
  }
  return problems;
}

/** One line per problem: `<file>: <message> — fix: <fix>`. */
export function formatShapeProblems(problems: readonly ShapeProblem[]): string {
  return problems.map((p) => `${p.file}: ${p.message} [${p.rule}]\n  fix: ${p.fix}`).join('\n');
}
