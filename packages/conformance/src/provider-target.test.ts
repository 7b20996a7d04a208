/**
 * providerTarget() on the fake provider: the machine is made and torn down through the provider,
 * the channel opens once and is closed by dispose(), and every way setup or teardown goes wrong
 * is reported, with no machine left behind (the fake provider's ledger is the witness).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { VmhubError, type Provider, type ProviderPlugin } from '@vmhub/core';
import { fakeProvider } from './fake/fake-provider.ts';
import { openFakeChannels } from './fake/fake-channel.ts';
import { readFakeLedger } from './fake/fake-store.ts';
import { fakeTemplate } from './fake/fake-templates.ts';
import { providerTarget } from './provider-target.ts';

const dir = await mkdtemp(join(tmpdir(), 'vmhub-provider-target-'));
after(() => rm(dir, { recursive: true, force: true }));
const template = (provider_options: Record<string, unknown> = {}) => fakeTemplate({ provider_options: { ready_delay_ms: 0, ...provider_options } });
const ops = async (identity: string) => (await readFakeLedger(dir)).filter((e) => e.identity === identity).map((e) => e.op);
const code = (c: string, text: RegExp) => (err: unknown) => VmhubError.is(err) && err.code === c && text.test(err.message);

/** The fake provider with some methods replaced (and calls to channel() counted). */
function patched(over: (p: Provider) => Partial<Provider>, counts = { channel: 0 }): ProviderPlugin<{ dir: string }> {
  return {
    ...fakeProvider,
    create(options, context) {
      const p = fakeProvider.create(options, context);
      return { ...p, channel: (m, t) => { counts.channel++; return p.channel!(m, t); }, ...over(p) } as Provider;
    },
  } as ProviderPlugin<{ dir: string }>;
}

it('makes a ready machine; channel() opens once; dispose() closes it and destroys the machine', async () => {
  const counts = { channel: 0 };
  const before = openFakeChannels();
  const target = await providerTarget({ plugin: patched(() => ({}), counts), options: { dir }, template: template(), instance: 'pt1' });
  const { machine } = target.context;
  assert.match(machine.identity, /^vmhub-pt1-/);
  assert.deepEqual(await ops(machine.identity), ['create']);
  const [a, b] = await Promise.all([target.context.channel(), target.context.channel()]);
  assert.equal(a, b, 'one channel for the lease');
  assert.equal((await a.exec(['echo', 'hi'])).stdout.toString(), 'hi\n');
  assert.equal(counts.channel, 1);
  assert.equal(openFakeChannels(), before + 1);
  await assert.rejects(target.context.console(), code('CAPABILITY_UNAVAILABLE', /offers no console/));

  await target.dispose();
  assert.equal(openFakeChannels(), before, 'dispose() closed the channel');
  assert.deepEqual(await ops(machine.identity), ['create', 'destroy']);
  await assert.rejects(target.context.channel(), code('LEASE_EXPIRED', /has ended/));
  await target.dispose(); // a second dispose is a no-op
  assert.deepEqual(await ops(machine.identity), ['create', 'destroy']);
});

it('an unavailable template fails with the provider\'s reason, before anything is created', async () => {
  const ledger = (await readFakeLedger(dir)).length;
  await assert.rejects(providerTarget({ plugin: fakeProvider, options: { dir }, template: template({ unavailable_reason: 'golden not built' }) }), code('CAPABILITY_UNAVAILABLE', /unavailable: golden not built/));
  assert.equal((await readFakeLedger(dir)).length, ledger);
});

it('a machine that never gets ready is destroyed before the error is thrown', async () => {
  await assert.rejects(providerTarget({ plugin: fakeProvider, options: { dir }, template: template({ fail_at: 'ready' }), instance: 'pt2' }), code('BOOT_TIMEOUT', /never booted/));
  const mine = (await readFakeLedger(dir)).filter((e) => e.identity.startsWith('vmhub-pt2-')).map((e) => e.op);
  assert.deepEqual(mine, ['create', 'destroy']);
});

it('dispose() reports a destroy that did not remove the machine', async () => {
  const target = await providerTarget({ plugin: patched(() => ({ destroy: async () => 'identity_mismatch' as const })), options: { dir }, template: template() });
  await assert.rejects(target.dispose(), code('INTERNAL', /answered "identity_mismatch"/));
  // Clean up for real: the fake machine is still there.
  const real = fakeProvider.create({ dir }, { identityPrefix: 'vmhub-', log: () => undefined });
  assert.equal(await real.destroy(target.context.machine), 'destroyed');
});
