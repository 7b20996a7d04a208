#!/usr/bin/env node
/**
 * extract-openapi.mjs — re-creates openapi/github-subset.json from GitHub's published OpenAPI
 * description (repository github/rest-api-description, file
 * descriptions/api.github.com/api.github.com.json, OpenAPI 3.0).
 *
 *   node scripts/extract-openapi.mjs <api.github.com.json> [--commit SHA] [--out FILE]
 *        [--repository github/rest-api-description] [--file descriptions/api.github.com/api.github.com.json]
 *
 * What it keeps: the operations the stand-in serves (OPERATIONS below, found by operationId),
 * with their path items' other methods dropped, and every component they reach through `$ref`,
 * transitively (schemas, parameters, responses — whatever is referenced), each copied verbatim
 * and listed in the order the source lists it. What it drops: every `examples` map (media types
 * and parameters) and so the `#/components/examples/*` they point at — examples are not used for
 * validation and would pull in megabytes. The result names its source in `x-source`
 * (repository, file, commit, the description's info.version) so a refresh is traceable.
 *
 * The commit: `--commit`, else `git -C <dir of the input> rev-parse HEAD` when the input sits in a
 * git checkout, else "unknown". Node built-ins only, so it runs from a bare checkout.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The operations the stand-in serves; everything else in the description is left out. */
export const OPERATIONS = [
  'apps/get-repo-installation',
  'apps/create-installation-access-token',
  'apps/revoke-installation-access-token',
];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Deep copy of `node` without `examples` maps; every `$ref` met is passed to `onRef`. */
function copyWithoutExamples(node, onRef) {
  if (Array.isArray(node)) return node.map((n) => copyWithoutExamples(n, onRef));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'examples' && v !== null && typeof v === 'object' && !Array.isArray(v)) continue;
    if (k === '$ref' && typeof v === 'string') onRef(v);
    out[k] = copyWithoutExamples(v, onRef);
  }
  return out;
}

/** The subset document for a full description `doc`; `source` becomes its `x-source`. */
export function extractSubset(doc, source) {
  const wanted = new Set(OPERATIONS);
  const refs = new Set();
  const queue = [];
  const onRef = (ref) => {
    if (!ref.startsWith('#/components/')) throw new Error(`unsupported $ref ${ref}`);
    if (!refs.has(ref)) { refs.add(ref); queue.push(ref); }
  };
  const paths = {};
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op || !wanted.has(op.operationId)) continue;
      wanted.delete(op.operationId);
      (paths[path] ??= {})[method] = copyWithoutExamples(op, onRef);
    }
  }
  if (wanted.size > 0) throw new Error(`operations not found in the description: ${[...wanted].join(', ')}`);

  const picked = {};
  while (queue.length > 0) {
    const ref = queue.shift();
    const [, , kind, name, ...rest] = ref.split('/');
    if (rest.length > 0) throw new Error(`unsupported nested $ref ${ref}`);
    const target = doc.components?.[kind]?.[name];
    if (target === undefined) throw new Error(`dangling $ref ${ref}`);
    (picked[kind] ??= {})[name] = copyWithoutExamples(target, onRef);
  }
  // Components in the order the source lists them (kinds too), so a diff after a refresh is small.
  const components = {};
  for (const kind of Object.keys(doc.components ?? {})) {
    if (!picked[kind]) continue;
    components[kind] = {};
    for (const name of Object.keys(doc.components[kind])) {
      if (name in picked[kind]) components[kind][name] = picked[kind][name];
    }
  }
  return {
    openapi: doc.openapi,
    info: {
      title: `${doc.info?.title ?? 'GitHub REST API'} — subset for @vmhub/github-standin`,
      version: doc.info?.version,
      description: `The operations ${OPERATIONS.join(', ')} and the components they reference, copied verbatim from GitHub's OpenAPI description (examples dropped). Regenerate with standins/github/scripts/extract-openapi.mjs.`,
      license: doc.info?.license,
    },
    'x-source': { ...source, infoVersion: doc.info?.version, operations: OPERATIONS, dropped: 'examples maps and #/components/examples' },
    servers: doc.servers,
    paths,
    components,
  };
}

function commitOf(file) {
  try {
    return execFileSync('git', ['-C', dirname(resolve(file)), 'rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

function main(argv) {
  const args = { out: fileURLToPath(new URL('../openapi/github-subset.json', import.meta.url)), repository: 'github/rest-api-description', file: 'descriptions/api.github.com/api.github.com.json' };
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--commit' || a === '--out' || a === '--repository' || a === '--file') args[a.slice(2)] = argv[++i];
    else if (a === '--help' || a === '-h') { process.stdout.write('usage: extract-openapi.mjs <api.github.com.json> [--commit SHA] [--out FILE] [--repository R] [--file F]\n'); return; }
    else positional.push(a);
  }
  if (positional.length !== 1) throw new Error('give the path of api.github.com.json (from a checkout of github/rest-api-description)');
  const input = positional[0];
  const doc = JSON.parse(readFileSync(input, 'utf8'));
  const subset = extractSubset(doc, { repository: args.repository, file: args.file, commit: args.commit ?? commitOf(input) });
  writeFileSync(args.out, `${JSON.stringify(subset, null, 2)}\n`);
  const counts = Object.entries(subset.components).map(([k, v]) => `${Object.keys(v).length} ${k}`).join(', ');
  process.stdout.write(`${args.out}: ${Object.keys(subset.paths).length} paths, ${counts}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`extract-openapi: ${err.message}\n`);
    process.exit(1);
  }
}
