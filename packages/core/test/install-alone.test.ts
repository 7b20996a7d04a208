// A third-party plugin peers on @vmhub/core: installing it alone with npm must bring only the
// contract's own dependencies (TypeBox, Ajv) — no MCP SDK, no sharp (libvips), no zod — and its
// root entry must load without them. Packs the package as published and installs the tarball.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { it } from 'node:test';

const run = promisify(execFile);
const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const npm = join(process.execPath, '..', process.platform === 'win32' ? 'npm.cmd' : 'npm');

it('core: installed alone with npm, it pulls in no MCP SDK, sharp or zod, and its root entry loads', { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-core-alone-'));
  try {
    const npmBin = existsSync(npm) ? npm : 'npm';
    const { stdout } = await run(npmBin, ['pack', '--silent', '--pack-destination', dir], { cwd: pkgDir });
    const tarball = join(dir, stdout.trim().split('\n').pop()!);
    const app = join(dir, 'app');
    await run('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'plugin-author', version: '1.0.0', type: 'module', private: true }));
    await run(npmBin, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], { cwd: app, timeout: 200_000 });
    const installed = readdirSync(join(app, 'node_modules')).flatMap((n) => n.startsWith('@') ? readdirSync(join(app, 'node_modules', n)).map((m) => `${n}/${m}`) : [n]);
    for (const heavy of ['@modelcontextprotocol/sdk', '@modelcontextprotocol/server', '@modelcontextprotocol/core', 'sharp', 'zod', '@img/sharp-linux-x64', 'express']) assert.ok(!installed.includes(heavy), `${heavy} was installed: ${installed.join(', ')}`);
    assert.ok(installed.includes('@vmhub/core') && installed.includes('@sinclair/typebox') && installed.includes('ajv'), installed.join(', '));
    writeFileSync(join(app, 'plugin.mjs'), [
      "import { defineAdapter, CONTRACT_VERSION, Type } from '@vmhub/core';",
      "const p = defineAdapter({ id: 'alone', version: '1.0.0', contractVersion: 2, capabilities: ['type'], options: Type.Object({}), create: () => ({ open: () => ({ type: async () => {} }) }) });",
      "console.log(JSON.stringify({ id: p.id, contract: CONTRACT_VERSION }));",
    ].join('\n'));
    const loaded = await run(process.execPath, ['plugin.mjs'], { cwd: app });
    assert.deepEqual(JSON.parse(loaded.stdout), { id: 'alone', contract: 2 });
    // The subpaths that need the optional peers say so when they are missing.
    const router = await run(process.execPath, ['-e', "import('@vmhub/core/router').then(() => console.log('loaded'), (e) => console.log(e.code))"], { cwd: app });
    assert.equal(router.stdout.trim(), 'ERR_MODULE_NOT_FOUND');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
