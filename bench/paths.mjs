// Where the benchmarks find the built workspace packages: node built-ins only, so that a forked
// child that measures something (reaper-pass.mjs, store.mjs) loads nothing else by importing it.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A workspace package's built file: `<ROOT>/<pkg>/dist/<file>` (its entry by default). */
export const distOf = (pkg, file = 'index.js') => join(ROOT, pkg, 'dist', file);

/** require() as packages/store resolves it: the store's own drivers (better-sqlite3, pg). */
export const storeRequire = createRequire(join(ROOT, 'packages/store/package.json'));
