// Bundles the `vmhub-server` bin (dist/bin.js + lazily loaded chunks) after tsc has built the
// library entry. Every MCP client pays the server's cold start, and loading ~700 small ESM files
// of the SDK, zod, TypeBox and Ajv cost more than the server's own work (bench/RESULTS.md).
// Native modules and plugins stay external: plugins are separate packages found at run time,
// and they bring their own @vmhub/core (errors are brand-checked, so two copies agree).
import { build } from 'esbuild';

await build({
  entryPoints: { bin: 'src/bin.ts' },
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  external: ['better-sqlite3', 'sharp', '@vmhub/provider-*', '@vmhub/adapter-*', 'vmhub-provider-*', 'vmhub-adapter-*'],
  banner: { js: "import { createRequire as __vmhubRequire } from 'node:module'; const require = __vmhubRequire(import.meta.url);" },
  sourcemap: 'linked',
  logLevel: 'warning',
});
