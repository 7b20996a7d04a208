/**
 * docker: identity — look-alike containers (a real lease's uuid in the name but no labels; a
 * wrong identity label) are never returned by list and never touched by destroy.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { MachineRef } from '@vmhub/core';
import { containerExists, docker, ensureGolden, makeProvider, removeContainers, template } from './fixture.ts';

describe('docker: identity', { timeout: 180_000 }, () => {
  const { provider, context } = makeProvider();
  const lease = randomUUID();
  const identity = `${context.identityPrefix}${lease}`;
  const lookAlike = `${identity}-copy`;
  const wrongLabel = `${context.identityPrefix}${randomUUID()}`;
  let machine: MachineRef;
  let decoyA: string;
  let decoyB: string;

  before(async () => {
    await ensureGolden();
    machine = await provider.create({ lease_id: lease, identity, template, signal: AbortSignal.timeout(60_000) });
    // Decoys are created, not started: enough for list and destroy, no CPU spent.
    decoyA = (await docker.json<{ Id: string }>('POST', '/containers/create', { query: { name: lookAlike }, body: { Image: template.golden, HostConfig: { NetworkMode: 'none' } } })).Id;
    decoyB = (await docker.json<{ Id: string }>('POST', '/containers/create', { query: { name: wrongLabel }, body: { Image: template.golden, Labels: { 'vmhub.identity': identity }, HostConfig: { NetworkMode: 'none' } } })).Id;
  });
  after(async () => {
    await removeContainers(identity, lookAlike, wrongLabel);
    await provider.close?.();
  });

  it('list returns only the real machine', async () => {
    const owned = await provider.list();
    assert.deepEqual(owned.map((m) => m.identity), [identity]);
    assert.equal(owned[0]!.external_id, machine.external_id);
    assert.ok(Math.abs(owned[0]!.created_at! - Date.now()) < 120_000);
  });

  it('destroy refuses a container named like the lease but without identity labels', async () => {
    assert.equal(await provider.destroy({ identity: lookAlike, external_id: decoyA }), 'identity_mismatch');
    assert.equal(await provider.destroy({ identity, external_id: decoyA }), 'identity_mismatch');
    assert.equal(await containerExists(decoyA), true);
  });

  it('destroy refuses a container whose label names another identity than its name', async () => {
    assert.equal(await provider.destroy({ identity, external_id: decoyB }), 'identity_mismatch');
    assert.equal(await provider.destroy({ identity: wrongLabel, external_id: decoyB }), 'identity_mismatch');
    assert.equal(await containerExists(decoyB), true);
    assert.ok(context.warnings.some((w) => w.includes('refusing to destroy')));
  });

  it('create refuses to adopt a same-named container without the label', async () => {
    await assert.rejects(provider.create({ lease_id: lease, identity: lookAlike, template, signal: AbortSignal.timeout(10_000) }), (e: any) => e.code === 'PROVISION_FAILED' && /refusing to adopt/.test(e.message));
  });

  it('destroy of the real machine removes only it', async () => {
    assert.equal(await provider.destroy(machine), 'destroyed');
    assert.equal(await containerExists(machine.external_id), false);
    assert.equal(await containerExists(decoyA), true);
    assert.equal(await containerExists(decoyB), true);
    assert.deepEqual(await provider.list(), []);
  });
});
