// examples/adapter-template is a copy-me package outside the workspace. This file keeps it in
// step with the contract, the way a stranger will use it:
// - its own test/conformance.test.ts runs here (the kit on the real Docker provider), with its
//   bare imports (@vmhub/core, @vmhub/conformance, @vmhub/provider-docker) resolved as if from
//   this package — what `npm install` gives a copied template. They resolve to dist: build
//   core, conformance and provider-docker first;
// - a copy of it, with those packages installed beside it, typechecks, builds and packs to
//   exactly dist + README + package.json.
// It lives in apps/server because the server already depends on all three packages; the kit
// itself must not depend on a provider.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire, registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const template = new URL('../../../examples/adapter-template/', import.meta.url);

registerHooks({
  resolve(specifier, context, nextResolve) {
    const bare = !/^(\.|\/|node:|file:|data:)/.test(specifier);
    if (bare && context.parentURL?.startsWith(template.href)) return nextResolve(specifier, { ...context, parentURL: import.meta.url });
    return nextResolve(specifier, context);
  },
});

await import(new URL('test/conformance.test.ts', template).href);

const run = promisify(execFile);
const require = createRequire(import.meta.url);
/** A package's folder as this package resolves it (what npm would install beside the copy). */
function installed(name: string): string {
  const local = fileURLToPath(new URL(`../node_modules/${name}`, import.meta.url));
  return realpathSync(existsSync(local) ? local : dirname(require.resolve(`${name}/package.json`)));
}

describe('adapter template: a copy typechecks, builds and packs', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-adapter-template-'));
  const copy = join(dir, 'vmhub-adapter-mything');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('tsc, build, the built entry loads, and npm pack ships only dist, README and package.json', async () => {
    const src = fileURLToPath(template);
    cpSync(src, copy, { recursive: true, filter: (p) => !/[/\\](node_modules|dist)([/\\]|$)/.test(p.slice(src.length - 1)) });
    for (const name of ['@vmhub/core', '@vmhub/conformance', '@vmhub/provider-docker', '@types/node', 'typescript']) {
      mkdirSync(dirname(join(copy, 'node_modules', name)), { recursive: true });
      symlinkSync(installed(name), join(copy, 'node_modules', name), 'dir');
    }
    const tsc = join(copy, 'node_modules/typescript/bin/tsc');
    const sh = (cmd: string, args: string[]) => run(cmd, args, { cwd: copy, maxBuffer: 16 * 1024 * 1024 }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      assert.fail(`${cmd} ${args.join(' ')} failed in the copied template:\n${err.stdout ?? ''}${err.stderr ?? ''}${err.message}`);
    });
    await sh(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit']);
    await sh(process.execPath, [tsc, '-p', 'tsconfig.build.json']);

    const built = (await import(join(copy, 'dist/index.js'))).default as { kind: string; id: string; contractVersion: number; version: string; capabilities: string[] };
    assert.equal(built.kind, 'adapter');
    assert.equal(built.id, 'example');
    assert.equal(built.contractVersion, 2);
    assert.equal(built.version, (require(join(copy, 'package.json')) as { version: string }).version, 'version comes from package.json');
    assert.deepEqual([...built.capabilities].sort(), ['click', 'exec', 'get_file', 'key', 'put_file', 'screenshot', 'type']);

    const { stdout } = await sh('npm', ['pack', '--dry-run', '--json', '--ignore-scripts']);
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    const stray = files.filter((f) => f !== 'package.json' && f !== 'README.md' && !f.startsWith('dist/'));
    assert.deepEqual(stray, [], `npm pack would ship ${stray.join(', ')}`);
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'README.md', 'package.json']) assert.ok(files.includes(f), `npm pack misses ${f} (has ${files.join(', ')})`);
    assert.ok(!files.some((f) => f.startsWith('dist/') && f.includes('.test.')), 'tests are not shipped');
  });
});
