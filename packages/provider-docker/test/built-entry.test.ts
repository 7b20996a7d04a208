/**
 * docker: the built entry (dist/) — what a server installs. Also runs the standalone golden
 * builder script, which must find the image already built and return at once.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { ensureGolden } from './fixture.ts';

const built = await import('../dist/index.js');

describe('docker: built entry', () => {
  before(() => ensureGolden());

  it('exports the provider, its factory, the template and the golden API', () => {
    assert.equal(built.default.kind, 'provider');
    assert.equal(built.default.id, 'docker');
    assert.equal(typeof built.createDockerProvider, 'function');
    const t = built.default.templates[0];
    assert.deepEqual({ id: t.id, provider: t.provider, adapter: t.adapter, os: t.os, resources: t.resources }, { id: 'debian-x11', provider: 'docker', adapter: 'x11', os: 'linux', resources: { cpus: 1, memory_mb: 1024 } });
    assert.match(t.golden, /^vmhub\/debian-x11:[0-9a-f]{12}$/);
    assert.equal(built.goldenImageTag('debian-x11'), t.golden);
    assert.throws(() => built.goldenImageTag('nope'), (e: any) => e.code === 'NOT_FOUND');
  });

  it('rejects unknown options at create (no I/O)', () => {
    assert.throws(() => built.createDockerProvider({ bogus: 1 } as never, { identityPrefix: 'vmhub-x-', log: () => {} }), (e: any) => e.code === 'INVALID_REQUEST');
  });

  it('goldenStatus reports the built image; golden/build.mjs does not rebuild it', async () => {
    const s = await built.goldenStatus('debian-x11');
    assert.equal(s.built, true);
    assert.equal(s.build_command, 'vmhub-server golden build debian-x11');
    const script = fileURLToPath(new URL('../golden/build.mjs', import.meta.url));
    const r = spawnSync(process.execPath, [script, 'debian-x11'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).rebuilt, false);
  });

  it('the Dockerfile path is generated from the same manifest and scripts', () => {
    const text = built.goldenDockerfile('debian-x11');
    assert.match(text, /^FROM debian:bookworm-slim$/m);
    assert.match(text, /^RUN sh \/tmp\/vmhub-setup-rootfs.sh/m);
    assert.match(text, /^ENTRYPOINT \["\/usr\/bin\/tini"/m);
    assert.ok(text.includes(built.default.templates[0].golden.split(':')[1]), 'the Dockerfile names the manifest hash');
  });
});
