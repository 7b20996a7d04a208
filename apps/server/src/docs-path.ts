/**
 * Where the installed @vmhub/server keeps its user docs (docs/ beside its package.json, copied from
 * the repository's docs/ at build time), so hints and `vmhub-server --help` can name a file the
 * user has — wherever npm or npx put the package — rather than a path of the vmhub repository.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** Absolute path of a doc shipped with @vmhub/server (`docPath('configuration.md')`), or of docs/. */
export function docPath(file = ''): string {
  root ??= packageRoot(dirname(fileURLToPath(import.meta.url)));
  return join(root, 'docs', file);
}

// The nearest package.json above this module: the same from src/, dist/ and the bundle's chunks.
function packageRoot(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d;
    if (dirname(d) === d) return dir;
  }
}

/** A built-in provider's or adapter's page (`providers/qemu.md`); a third-party plugin's is its README. */
export function pluginDoc(kind: 'providers' | 'adapters', id: string): string {
  const page = docPath(`${kind}/${id}.md`);
  return existsSync(page) ? page : `the README of the plugin package that provides ${kind === 'providers' ? 'provider' : 'adapter'} "${id}"`;
}
