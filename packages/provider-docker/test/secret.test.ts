/**
 * Per-lease secrets (provider_options.lease_secrets): each lease's container gets its own random
 * value as that environment variable, secret() reads exactly that value back from the container,
 * a name the template does not list is undefined (no reading other environment through it), and
 * a removed container is MACHINE_LOST.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { machineIdentity, VmhubError, type MachineRef, type Provider, type TemplateConfig } from '@vmhub/core';
import { ensureGolden, makeProvider, removeContainers, template as base } from './fixture.ts';

const template: TemplateConfig = { ...base, id: 'secret-t', provider_options: { lease_secrets: ['GUEST_AUTH_KEY'] } };

describe('docker: per-lease secrets', { timeout: 180_000 }, () => {
  let provider: Provider;
  const machines: MachineRef[] = [];
  before(async () => {
    await ensureGolden();
    const made = makeProvider();
    provider = made.provider;
    for (let i = 0; i < 2; i++) {
      const lease = randomUUID();
      const m = await provider.create({ lease_id: lease, identity: machineIdentity(made.context.instance, lease), template, signal: AbortSignal.timeout(60_000) });
      await provider.ready(m, { signal: AbortSignal.timeout(60_000), stage: () => undefined, template });
      machines.push(m);
    }
  });
  after(async () => {
    await removeContainers(...machines.map((m) => m.external_id));
    await provider?.close?.();
  });

  it('each lease has its own value, the one its guest sees', async () => {
    const values: string[] = [];
    for (const m of machines) {
      const value = await provider.secret!(m, 'GUEST_AUTH_KEY', { template });
      assert.match(value ?? '', /^[A-Za-z0-9_-]{32}$/);
      const ch = await provider.channel!(m, template);
      try {
        const seen = await ch.exec(['sh', '-c', 'cat /proc/1/environ | tr "\\0" "\\n" | grep ^GUEST_AUTH_KEY= | cut -d= -f2-'], { user: 'root' });
        assert.equal(seen.stdout.toString().trim(), value, 'the guest was started with this value');
      } finally {
        await ch.close();
      }
      values.push(value!);
    }
    assert.notEqual(values[0], values[1], 'two leases never share a secret');
  });

  it('a name the template does not list is undefined, even if the container has it in its environment', async () => {
    assert.equal(await provider.secret!(machines[0]!, 'VMHUB_SCREEN', { template }), undefined);
    assert.equal(await provider.secret!(machines[0]!, 'GUEST_AUTH_KEY', { template: base }), undefined);
  });

  it('a container removed behind vmhub is MACHINE_LOST', async () => {
    const gone = machines.pop()!;
    await removeContainers(gone.external_id);
    await assert.rejects(provider.secret!(gone, 'GUEST_AUTH_KEY', { template }), (e: unknown) => VmhubError.is(e) && e.code === 'MACHINE_LOST');
  });
});
