/**
 * A program from the npm registry that a test runs (the Claude Code CLI, another Node.js), at the
 * version test/fixtures/npm-tools.json pins. Installed once per version into the temp dir and
 * reused; npm takes it from its cache when scripts/warm-npm-cache.sh (setup) put it there, else
 * from the registry. Where it cannot be installed, the test is skipped with the reason — except
 * under CI, which reaches the registry: there it fails.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const PINNED: Record<string, string> = JSON.parse(readFileSync(new URL('./fixtures/npm-tools.json', import.meta.url), 'utf8'));

/**
 * The installed package's folder, or why it is not there (a test's `skip`). `companions`: other
 * pinned packages installed into the same folder (a client library and the ones it is used with),
 * so a script placed in `prefix` resolves them all as a user's project would.
 */
export async function npmTool(name: string, ...companions: string[]): Promise<{ dir: string; prefix: string; skip?: undefined } | { dir?: undefined; prefix?: undefined; skip: string }> {
  const specs = [name, ...companions].map((n) => `${n}@${PINNED[n]!}`);
  const prefix = join(tmpdir(), 'vmhub-npm-tools', specs.map((s) => s.replace('/', '+')).join(','));
  const dir = join(prefix, 'node_modules', name);
  const done = join(prefix, '.installed');
  if (existsSync(done)) return { dir, prefix };
  const npm = (process.env.PATH ?? '').split(':').map((d) => join(d, 'npm')).find((f) => existsSync(f));
  let why = 'npm is not on PATH';
  if (npm) {
    mkdirSync(prefix, { recursive: true });
    try {
      // npm's own CLI run by this Node; npm_* settings of a pnpm script run are not passed down.
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || /^npm_config_(cache|userconfig)$/i.test(k)));
      await run(process.execPath, [realpathSync(npm), 'install', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...specs], { env, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 });
      writeFileSync(done, `${specs.join(' ')}\n`);
      return { dir, prefix };
    } catch (err) {
      why = `npm install ${specs.join(' ')} failed: ${String((err as { stderr?: string }).stderr || (err as Error).message).trim().split('\n').slice(-3).join(' ')}`;
    }
  }
  if (process.env.CI) throw new Error(`${why} (CI reaches the npm registry: this must install there)`);
  return { skip: `${why}; run bash scripts/warm-npm-cache.sh with the registry reachable` };
}
