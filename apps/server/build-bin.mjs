// Bundles the `vmhub-server` bin (dist/bin.js + lazily loaded chunks) after tsc has built the
// library entry. Every MCP client pays the server's cold start, and loading ~700 small ESM files
// of the SDK, zod, TypeBox and Ajv cost more than the server's own work (bench/RESULTS.md).
// Native modules (ssh2 has optional native crypto) and plugins stay external: plugins are separate
// packages found at run time, and they bring their own @vmhub/core (errors are brand-checked, so
// two copies agree).
//
// No source maps: the bundle's maps were 3.8 MB of a 6 MB tarball and point at sources the
// package does not ship; stack traces name the bundled files, which are readable as they are.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';

const outdir = resolve('dist');
const result = await build({
  entryPoints: { bin: 'src/bin.ts' },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  outdir,
  chunkNames: 'chunks/[name]-[hash]',
  // ws loads bufferutil / utf-8-validate only when installed (optional): left to run time.
  external: ['better-sqlite3', 'sharp', 'ssh2', 'bufferutil', 'utf-8-validate', '@vmhub/provider-*', '@vmhub/adapter-*', 'vmhub-provider-*', 'vmhub-adapter-*'],
  banner: { js: "import { createRequire as __vmhubRequire } from 'node:module'; const require = __vmhubRequire(import.meta.url);" },
  sourcemap: false,
  write: false,
  logLevel: 'warning',
});

// Chunks first, bin.js last, then drop what earlier builds left (chunks under old hashes, maps):
// a server started meanwhile from this dist/ never finds bin.js naming a chunk not yet written.
const outputs = result.outputFiles.sort((a, b) => Number(a.path.endsWith('bin.js')) - Number(b.path.endsWith('bin.js')));
for (const file of outputs) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.contents);
}
const written = new Set(outputs.map((f) => f.path));
for (const entry of readdirSync(outdir, { recursive: true, withFileTypes: true })) {
  const path = join(entry.parentPath, entry.name);
  const staleChunk = entry.parentPath === join(outdir, 'chunks') && !written.has(path);
  if (entry.isFile() && (staleChunk || entry.name.endsWith('.map'))) rmSync(path);
}
