#!/usr/bin/env node
// Build a provider-qemu test golden offline: `node golden/build.mjs tiny-console|tiny-console-agent [--dir DIR] [--force] [--status]`.
// Uses the built package (run `npx tsc -p tsconfig.build.json` first), falling back to the sources.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const entry = existsSync(here('../dist/index.js')) ? here('../dist/index.js') : here('../src/index.ts');
const { buildGolden, goldenStatus, GOLDEN_NAMES } = await import(entry);

const args = process.argv.slice(2);
const name = args.find((a) => !a.startsWith('--'));
const dirAt = args.indexOf('--dir');
const options = { ...(dirAt >= 0 ? { dir: args[dirAt + 1] } : {}), force: args.includes('--force') };
if (!GOLDEN_NAMES.includes(name)) {
  console.error(`usage: build.mjs ${GOLDEN_NAMES.join('|')} [--dir DIR] [--force] [--status]`);
  process.exit(2);
}
const started = Date.now();
const status = args.includes('--status') ? await goldenStatus({ ...options, name }) : await buildGolden(name, options);
console.log(JSON.stringify({ ...status, seconds: (Date.now() - started) / 1000 }, null, 2));
process.exit(status.built ? 0 : 1);
