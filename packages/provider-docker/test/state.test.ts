/**
 * docker: state() and a machine that vanished behind vmhub's back. Paused, stopped and removed
 * containers are told apart by state(); a look-alike container (the name without the label) is
 * 'gone' for the lease; and a channel on a stopped or removed container answers MACHINE_LOST
 * (not a retryable LOCK_CONTENTION or LEASE_NOT_READY), naming the identity, never the engine id.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { VmhubError, type MachineRef } from '@vmhub/core';
import { docker, ensureGolden, makeProvider, removeContainers, template } from './fixture.ts';

describe('docker: state() and machines lost outside vmhub', { timeout: 240_000 }, () => {
  const { provider, context } = makeProvider();
  const identity = `${context.identityPrefix}${randomUUID()}`;
  const lookalike = `${context.identityPrefix}${randomUUID()}`;
  let machine: MachineRef;

  const post = async (path: string): Promise<void> => {
    const r = await docker.raw('POST', path);
    assert.ok(r.status < 300, `${path}: ${r.status} ${r.body.toString()}`);
  };
  const lost = (what: string, id: string) => (e: unknown): boolean => {
    assert.ok(VmhubError.is(e), `${what}: ${String(e)}`);
    assert.equal(e.code, 'MACHINE_LOST', `${what}: ${e.code} ${e.message}`);
    assert.equal(e.retryable, false);
    assert.ok(e.message.includes(identity), `${what}: names the identity: ${e.message}`);
    assert.ok(!e.message.includes(id) && !e.message.includes(id.slice(0, 12)), `${what}: leaks the container id: ${e.message}`);
    return true;
  };

  before(async () => {
    await ensureGolden();
    machine = await provider.create({ lease_id: identity.slice(context.identityPrefix.length), identity, template, signal: AbortSignal.timeout(60_000) });
    await provider.ready(machine, { signal: AbortSignal.timeout(60_000), template, stage: () => {} });
  });
  after(async () => {
    await removeContainers(identity, lookalike);
    await provider.close?.();
  });

  it('running → paused is stopped → unpaused is running; a channel on the paused container is MACHINE_LOST', async () => {
    assert.equal(await provider.state!(machine), 'running');
    const ch = await provider.channel!(machine, template);
    await post(`/containers/${machine.external_id}/pause`);
    try {
      assert.equal(await provider.state!(machine), 'stopped');
      await assert.rejects(provider.channel!(machine, template), lost('channel() on paused', machine.external_id));
    } finally {
      await post(`/containers/${machine.external_id}/unpause`);
    }
    assert.equal(await provider.state!(machine), 'running');
    assert.equal((await ch.exec(['echo', 'back'])).stdout.toString(), 'back\n');
    await ch.close();
  });

  it('a forged identity or a look-alike container (the name, no label) is gone for the lease', async () => {
    assert.equal(await provider.state!({ ...machine, identity: `${context.identityPrefix}${randomUUID()}` }), 'gone');
    const made = await docker.json<{ Id: string }>('POST', '/containers/create', { query: { name: lookalike }, body: { Image: template.golden, Entrypoint: ['sleep', '300'], HostConfig: { NetworkMode: 'none' } } });
    await post(`/containers/${made.Id}/start`);
    assert.equal(await provider.state!({ identity: lookalike, external_id: made.Id }), 'gone');
    assert.equal(await provider.state!({ identity: lookalike, external_id: '' }), 'gone');
    assert.equal(await provider.state!({ identity, external_id: made.Id }), 'gone', 'another container\'s id with this identity');
  });

  it('docker stop: state() says stopped; the open channel\'s exec, files and a new channel answer MACHINE_LOST', async () => {
    const ch = await provider.channel!(machine, template);
    const helperless = makeProvider({ exec_helper: false }, context).provider;
    const plain = await helperless.channel!(machine, template);
    await post(`/containers/${machine.external_id}/stop?t=1`);
    assert.equal(await provider.state!(machine), 'stopped');
    for (const [name, c] of [['helper', ch], ['engine', plain]] as const) {
      // The helper's connection died with the container: the first exec may report the loss as a result.
      await c.exec(['true']).catch(() => undefined);
      await assert.rejects(c.exec(['true']), lost(`${name} exec after stop`, machine.external_id));
      await assert.rejects(c.putFile('/tmp/x', Buffer.from('x')), lost(`${name} putFile after stop`, machine.external_id));
      await assert.rejects(c.getFile('/etc/hostname'), lost(`${name} getFile after stop`, machine.external_id));
    }
    await assert.rejects(provider.channel!(machine, template), lost('channel() after stop', machine.external_id));
    await ch.close();
    await plain.close();
    await helperless.close?.();
  });

  it('docker rm -f: state() says gone (never throws), a channel answers MACHINE_LOST', async () => {
    await post(`/containers/${machine.external_id}/start`);
    const ch = await provider.channel!(machine, template);
    await removeContainers(machine.external_id);
    assert.equal(await provider.state!(machine), 'gone');
    await ch.exec(['true']).catch(() => undefined);
    await assert.rejects(ch.exec(['true']), lost('exec after rm', machine.external_id));
    await assert.rejects(ch.putFile('/tmp/x', Buffer.from('x')), lost('putFile after rm', machine.external_id));
    await assert.rejects(provider.channel!(machine, template), lost('channel() after rm', machine.external_id));
    await ch.close();
  });
});
