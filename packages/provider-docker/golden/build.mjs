#!/usr/bin/env node
// Build a golden image without the server: `node golden/build.mjs debian-x11 [--method=debootstrap|dockerfile|auto] [--force] [--network=host]`.
// Uses the built package (dist/) when present, else the TypeScript sources (Node >= 22.18 strips types).
const args = process.argv.slice(2);
const name = args.find((a) => !a.startsWith('--')) ?? 'debian-x11';
const method = (args.find((a) => a.startsWith('--method=')) ?? '--method=auto').slice('--method='.length);
const force = args.includes('--force');
const buildNetwork = args.find((a) => a.startsWith('--network='))?.slice('--network='.length);
let mod;
try {
  mod = await import('../dist/index.js');
} catch {
  mod = await import('../src/index.ts');
}
try {
  const result = await mod.buildGolden(name, { method, force, buildNetwork, log: (line) => process.stderr.write(`[golden ${name}] ${line}\n`) });
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
