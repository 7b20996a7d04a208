/**
 * The source rules, over every non-test source file under src/: a plugin imports only the
 * contract (@vmhub/core's root entry and its adapter kit) — no server part of core, no vmhub
 * platform package, no other plugin — imports statically (no `import(…)`), writes its contract
 * version as a literal and reads its own version from package.json.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { importsOf, packageOf } from './imports.ts';
import { lex, lineAt } from './lexer.ts';
import type { ShapeProblem } from './types.ts';

const SOURCE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const TEST_FILE = /\.test\.[cm]?[jt]s$|\.d\.[cm]?ts$/;

/** An adapter or provider package, by its name: @vmhub/adapter-*, @vmhub/provider-*, [@scope/]vmhub-adapter-*, [@scope/]vmhub-provider-*. */
export function isPluginPackage(name: string): boolean {
  return /^@vmhub\/(adapter|provider)-/.test(name) || /^(@[^/]+\/)?vmhub-(adapter|provider)-/.test(name);
}

/** The package's source files (paths relative to its folder, `/`-separated), tests left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(dir, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && SOURCE_FILE.test(e.name) && !TEST_FILE.test(e.name) && !e.parentPath.split(sep).includes('node_modules'))
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

const SERVER_PARTS = /^@vmhub\/core\/(router|screenshot|config)(\/|$)/;
const PLATFORM = /^@vmhub\/(store|server|reaper|conformance)(\/|$)/;

export function sourceProblems(dir: string, file: string, own: { name?: string; version?: string }): ShapeProblem[] {
  const text = readFileSync(join(dir, file), 'utf8');
  const problems: ShapeProblem[] = [];
  const at = (line: number) => `${file}:${line}`;
  for (const seen of importsOf(text)) {
    if (seen.dynamic) {
      problems.push({ rule: 'dynamic-import', file: at(seen.line), message: `import(${seen.specifier}) loads a module at run time`, fix: 'import it statically at the top of the file: the plugin\'s whole module graph is then known when it loads, checked and packed' });
      continue;
    }
    const spec = seen.specifier;
    const pkg = packageOf(spec);
    if (SERVER_PARTS.test(spec)) problems.push({ rule: 'server-import', file: at(seen.line), message: `imports ${spec}, a server part of @vmhub/core`, fix: 'import only @vmhub/core (the contract) and @vmhub/core/adapter-kit: the router, screenshot shaping and configuration are the server\'s' });
    else if (PLATFORM.test(spec)) problems.push({ rule: 'platform-import', file: at(seen.line), message: `imports ${spec}`, fix: 'plugins import only @vmhub/core: what the server knows reaches a plugin through the contract (LeaseContext, ProviderContext)' });
    else if (pkg && pkg !== own.name && isPluginPackage(pkg)) problems.push({ rule: 'plugin-import', file: at(seen.line), message: `imports the plugin ${pkg}`, fix: 'plugins meet only through core: an adapter reaches the machine through its LeaseContext (channel, connect, forward), never a provider\'s code; move what both need into a library package' });
  }
  const { code } = lex(text);
  for (const m of code.matchAll(/contractVersion\s*:\s*(?:[\w$]+\.)?CONTRACT_VERSION\b/g)) {
    problems.push({ rule: 'contract-literal', file: at(lineAt(code, m.index)), message: 'contractVersion is core\'s CONTRACT_VERSION, not a literal', fix: 'write the contract this file was written for as a literal (contractVersion: 2): importing CONTRACT_VERSION compares core with itself' });
  }
  const versions = new RegExp(`['"\`](0\\.\\d+\\.\\d+${own.version ? `|${own.version.replace(/[.+]/g, '\\$&')}` : ''})['"\`]`, 'g');
  for (const m of code.matchAll(versions)) {
    problems.push({ rule: 'version', file: at(lineAt(code, m.index)), message: `a version typed by hand (${m[0]})`, fix: 'read the package\'s version from package.json: readPackageVersion(import.meta.url) from @vmhub/core' });
  }
  return problems;
}
