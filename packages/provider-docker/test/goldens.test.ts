/**
 * docker: golden images on the provider spec (`goldens(options)`), what `vmhub-server golden …`
 * uses without naming this package: the names are the manifests shipped under golden/, status
 * reads the engine (the image tag is the ref), build skips an image that is current, and the
 * daemon is the one the provider options name.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import dockerProvider, { goldenImageTag } from '../src/index.ts';
import { standinGoldensRoot } from '../src/golden-manifest.ts';
import { docker, ensureGolden } from './fixture.ts';

const GOLDEN = fileURLToPath(new URL('../golden/', import.meta.url));

describe('docker: goldens on the provider spec', { timeout: 600_000 }, () => {
  before(() => ensureGolden());

  it('names are the folders under golden/ (and, in a checkout, the stand-in goldens) that hold a manifest.json', () => {
    const goldens = dockerProvider.goldens({});
    assert.ok(goldens, 'the docker provider declares goldens');
    const withManifest = (dir: string) => readdirSync(dir).filter((d) => existsSync(`${dir}${d}/manifest.json`));
    const standins = standinGoldensRoot();
    assert.ok(standins, 'a checkout resolves @vmhub/standin-goldens');
    const manifests = [...withManifest(GOLDEN), ...withManifest(standins.dir)].sort();
    assert.deepEqual([...goldens.names], manifests);
    assert.ok(goldens.names.includes('debian-x11'));
    assert.ok(goldens.names.includes('windows-standin'), 'the stand-in goldens are listed from a checkout');
  });

  it('status() of the built debian-x11 says built, with its image tag as ref (the tag the engine holds)', async () => {
    const s = await dockerProvider.goldens({})!.status('debian-x11');
    assert.deepEqual(s, { name: 'debian-x11', built: true, ref: goldenImageTag('debian-x11') });
    const res = await docker.raw('GET', `/images/${s.ref}/json`);
    assert.equal(res.status, 200, `the engine has ${s.ref}`);
    assert.equal(s.ref, dockerProvider.templates[0]!.golden, 'the same tag the built-in template runs');
  });

  it('build() of a current golden does not rebuild it and reports where it is', async () => {
    const progress: string[] = [];
    const r = await dockerProvider.goldens({})!.build('debian-x11', { progress: (l) => progress.push(l) });
    assert.deepEqual(r, { name: 'debian-x11', built: true, ref: goldenImageTag('debian-x11'), rebuilt: false });
    assert.ok(progress.some((l) => l.includes('already built')), progress.join('\n'));
  });

  it('build() with a cancelled signal builds nothing and says so', async () => {
    const ctl = new AbortController();
    ctl.abort(new Error('operator pressed ^C'));
    await assert.rejects(dockerProvider.goldens({})!.build('debian-x11', { force: true, signal: ctl.signal }), (e: unknown) =>
      VmhubError.is(e) && e.code === 'TIMEOUT' && e.message.includes('cancelled') && e.message.includes('operator pressed ^C'));
    assert.equal((await dockerProvider.goldens({})!.status('debian-x11')).built, true, 'the image is still there');
  });

  it('talks to the daemon the provider options name (docker_host), not the default one', async () => {
    const goldens = dockerProvider.goldens({ docker_host: 'unix:///nonexistent/vmhub-golden.sock' })!;
    await assert.rejects(goldens.status('debian-x11'), (e: unknown) =>
      VmhubError.is(e) && e.code === 'NODE_UNAVAILABLE' && e.message.includes('/nonexistent/vmhub-golden.sock'));
  });

  it('an unknown golden is NOT_FOUND listing the known ones; bad options are refused like create()', async () => {
    await assert.rejects(dockerProvider.goldens({})!.status('nope'), (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND' && e.message.includes('debian-x11'));
    assert.throws(() => dockerProvider.goldens({ dockerHost: 'x' } as never), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && e.message.includes('unknown field "dockerHost"'));
  });
});
