/**
 * docker: daemon unreachable — DOCKER_HOST pointing at a socket that does not exist. status and
 * availability say why (never throw); create and state() fail with a typed, retryable error.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { makeProvider, template } from './fixture.ts';

describe('docker: daemon unreachable', () => {
  const sock = `/tmp/vmhub-no-docker-${randomUUID()}.sock`;

  it('status not ok and availability unavailable, with the reason and the fix', async () => {
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = `unix://${sock}`;
    try {
      const { provider } = makeProvider();
      const status = await provider.status();
      assert.equal(status.ok, false);
      assert.equal(status.reason, `Docker daemon not reachable at ${sock} (ENOENT): start it (dockerd) or set DOCKER_HOST`);
      const avail = await provider.availability(template);
      assert.equal(avail.availability, 'unavailable');
      assert.match(avail.reason!, /Docker daemon not reachable at .*: start it \(dockerd\) or set DOCKER_HOST/);
      await assert.rejects(provider.create({ lease_id: 'x', identity: 'vmhub-t-x', template, signal: AbortSignal.timeout(5000) }), (e: any) => e.code === 'NODE_UNAVAILABLE' && e.retryable === true);
      // state() cannot tell gone from unreachable: it throws (so the lease is not ended for it).
      await assert.rejects(provider.state!({ identity: 'vmhub-t-x', external_id: 'abc' }), (e: any) => e.code === 'NODE_UNAVAILABLE' && e.retryable === true);
      await provider.close?.();
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });

  it('tcp:// DOCKER_HOST to a closed loopback port is unreachable too', async () => {
    const { provider } = makeProvider({ docker_host: 'tcp://127.0.0.1:1' });
    const status = await provider.status();
    assert.equal(status.ok, false);
    assert.match(status.reason!, /not reachable at 127\.0\.0\.1:1 \(ECONNREFUSED\)/);
  });

  it('a missing image is unavailable (and create fails) with its own fix, never a build of another tag', async () => {
    const { provider } = makeProvider();
    const avail = await provider.availability({ ...template, golden: 'vmhub/debian-x11:000000000000' });
    assert.equal(avail.availability, 'unavailable');
    assert.match(avail.reason!, /^image vmhub\/debian-x11:000000000000 is not on the Docker host, and `vmhub-server golden build debian-x11` builds vmhub\/debian-x11:[0-9a-f]{12} \(this version's debian-x11\), not this tag: set the template's golden to/);
    assert.deepEqual(await provider.availability(template), { availability: 'available' });
    const identity = `vmhub-t-${randomUUID()}`;
    await assert.rejects(provider.create({ lease_id: identity, identity, template: { ...template, golden: 'myorg/desktop:2' }, signal: AbortSignal.timeout(10_000) }),
      (e: any) => e.code === 'PROVISION_FAILED' && e.message.includes('image myorg/desktop:2 is not on the Docker host and is not a vmhub golden') && !e.message.includes('golden build myorg'));
    await provider.close?.();
  });
});
