#!/usr/bin/env node
/**
 * vmhub-conformance — the conformance kit's command line.
 *
 *   vmhub-conformance shape [dir…] [--entry <file>] [--allow-dependency <name>]… [--json]
 *
 * Checks each plugin package folder (default: the current one) with checkPackageShape: prints
 * each problem with its fix, and exits 1 when there is any (2 on a usage error). Build the package
 * first: the check imports its entry (package.json "exports" ".", else "main") unless --entry
 * names another (a .ts entry runs under Node's type stripping).
 */
import { parseArgs } from 'node:util';
import { checkPackageShape, formatShapeProblems } from '../package-shape/index.ts';

const USAGE = 'usage: vmhub-conformance shape [dir…] [--entry <file>] [--allow-dependency <name>]… [--json]';

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { entry: { type: 'string' }, 'allow-dependency': { type: 'string', multiple: true }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command, ...dirs] = parsed.positionals;
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  if (command !== 'shape') {
    console.error(USAGE);
    return 2;
  }
  let failed = false;
  const report: Record<string, unknown> = {};
  for (const dir of dirs.length > 0 ? dirs : ['.']) {
    const problems = await checkPackageShape(dir, { ...(parsed.values.entry ? { entry: parsed.values.entry } : {}), allowDependencies: parsed.values['allow-dependency'] ?? [] });
    failed ||= problems.length > 0;
    if (parsed.values.json) report[dir] = problems;
    else console.log(problems.length === 0 ? `✔ ${dir}: the package has the vmhub plugin shape` : `✖ ${dir}: ${problems.length} problem(s)\n${formatShapeProblems(problems)}`);
  }
  if (parsed.values.json) console.log(JSON.stringify(report, null, 2));
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
