/**
 * docker: golden build path (a), the Dockerfile — opt-in (VMHUB_TEST_DOCKERFILE=1): CI has no
 * registry, so the base image is a debootstrap minbase imported under a throwaway tag, and the
 * build's RUN steps use host networking to reach Debian's mirror. The built image must come up
 * as a desktop exactly like the debootstrap one.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { readProgress } from '../src/golden-import.ts';
import { buildWithDockerfile } from '../src/golden-dockerfile.ts';
import { loadGolden } from '../src/golden-manifest.ts';
import { docker, makeProvider, removeContainers, template } from './fixture.ts';

const enabled = process.env.VMHUB_TEST_DOCKERFILE === '1';

describe('docker: golden via Dockerfile', { skip: enabled ? false : 'opt-in: set VMHUB_TEST_DOCKERFILE=1 (needs root, debootstrap and Debian\'s mirror; ~3 min)', timeout: 900_000 }, () => {
  const suffix = randomUUID().slice(0, 8);
  const baseTag = `vmhub-test/bookworm-base:${suffix}`;
  const tag = `vmhub-test/debian-x11-dockerfile:${suffix}`;
  const { provider, context } = makeProvider();
  const identity = `${context.identityPrefix}${randomUUID()}`;
  const log = (l: string) => { if (process.env.VMHUB_TEST_VERBOSE) process.stderr.write(`[dockerfile] ${l}\n`); };

  after(async () => {
    await removeContainers(identity);
    for (const t of [tag, baseTag]) await docker.raw('DELETE', `/images/${t}`, { query: { force: true } });
    await provider.close?.();
  });

  it('builds from the generated Dockerfile and the image comes up as a desktop', async () => {
    const t0 = Date.now();
    const work = mkdtempSync('/var/tmp/vmhub-base-');
    try {
      const g = loadGolden('debian-x11');
      const r = spawnSync('debootstrap', ['--variant=minbase', '--cache-dir=/var/cache/vmhub-debootstrap/debootstrap', g.manifest.debian.suite, `${work}/rootfs`, g.manifest.debian.mirror], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const tar = spawn('tar', ['-C', `${work}/rootfs`, '--numeric-owner', '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
      const [repo, t] = baseTag.split(':');
      await readProgress(await docker.stream('POST', '/images/create', { query: { fromSrc: '-', repo, tag: t }, body: tar.stdout, timeoutMs: 0 }), 'base import', log);
      await buildWithDockerfile({ ...g, tag, manifest: { ...g.manifest, debian: { ...g.manifest.debian, base_image: baseTag } } }, docker, log, 'host');
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    process.stderr.write(`[dockerfile] base + Dockerfile build in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
    const tpl = { ...template, golden: tag };
    const machine = await provider.create({ lease_id: identity, identity, template: tpl, signal: AbortSignal.timeout(60_000) });
    const seen: string[] = [];
    await provider.ready(machine, { template: tpl, signal: AbortSignal.timeout(60_000), stage: (n, s) => seen.push(`${n}:${s}`) });
    assert.ok(seen.includes('desktop:done'));
    const ch = await provider.channel!(machine, tpl);
    const out = await ch.exec(['sh', '-c', 'id -un; locale -a | grep -c en_US; fc-list ":charset=7c98 41f" | wc -l']);
    const [user, locales, fonts] = out.stdout.toString().trim().split('\n');
    assert.equal(user, 'user');
    assert.equal(locales, '1');
    assert.ok(Number(fonts) > 0);
    await ch.close();
    assert.equal(await provider.destroy(machine), 'destroyed');
  });
});
