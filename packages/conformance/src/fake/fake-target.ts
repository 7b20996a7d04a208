/**
 * fakeTarget(): a ready fake machine and the LeaseContext to open a session on it, for
 * runAdapterConformance and for adapters that only need a GuestChannel (see
 * examples/adapter-template). dispose() destroys the machine and removes a dir it made.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityPrefix, machineIdentity, VmhubError, type GuestChannel, type LeaseContext, type TemplateConfig } from '@vmhub/core';
import type { AdapterTarget } from '../types.ts';
import { viewDesktop } from './fake-desktop.ts';
import { fakeProvider } from './fake-provider.ts';
import { fakeTemplate } from './fake-templates.ts';

export interface FakeTargetOptions {
  /** Shared fake dir; default a fresh temp dir removed by dispose(). */
  dir?: string;
  template?: TemplateConfig;
}

export async function fakeTarget(options: FakeTargetOptions = {}): Promise<AdapterTarget> {
  const dir = options.dir ?? await mkdtemp(join(tmpdir(), 'vmhub-fake-target-'));
  const instance = `t${randomUUID().slice(0, 8)}`;
  const provider = fakeProvider.create({ dir }, { identityPrefix: identityPrefix(instance), log: () => undefined });
  const template = options.template ?? fakeTemplate({ provider_options: { ready_delay_ms: 0 } });
  const leaseId = randomUUID();
  const lifetime = new AbortController();
  const machine = await provider.create({ lease_id: leaseId, identity: machineIdentity(instance, leaseId), template, signal: lifetime.signal });
  await provider.ready(machine, { signal: lifetime.signal, stage: () => undefined, template });
  let channel: Promise<GuestChannel> | undefined;
  const context: LeaseContext = {
    lease_id: leaseId, machine, template,
    channel: () => (channel ??= provider.channel!(machine, template)),
    console: async () => { throw new VmhubError('CAPABILITY_UNAVAILABLE', '[vmhub] [provider-fake] the fake provider has no console', { source: 'provider-fake' }); },
    connect: async () => { throw new VmhubError('CAPABILITY_UNAVAILABLE', '[vmhub] [provider-fake] the fake provider has no guest ports', { source: 'provider-fake' }); },
    forward: async () => { throw new VmhubError('CAPABILITY_UNAVAILABLE', '[vmhub] [provider-fake] the fake provider has no guest ports', { source: 'provider-fake' }); },
  };
  // The fake desktop is read through the channel; effects probes use their own call context.
  const view = () => viewDesktop({ ...context, signal: lifetime.signal });
  return {
    context,
    effects: {
      typedText: async () => (await view()).typed,
      clipboard: async () => (await view()).clipboard,
      pointer: async () => (await view()).pointer,
      keys: async () => (await view()).keys,
      scrolls: async () => (await view()).scrolls,
    },
    async dispose() {
      lifetime.abort();
      if (channel) await (await channel.catch(() => undefined))?.close();
      await provider.destroy(machine);
      if (!options.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
