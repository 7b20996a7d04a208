/**
 * fakeTarget(): a ready fake machine and the AdapterContext to drive it, for
 * runAdapterConformance and for adapters that only need a GuestChannel (see
 * examples/adapter-template). dispose() destroys the machine and removes a dir it made.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityPrefix, machineIdentity, VmhubError, type AdapterContext, type GuestChannel, type TemplateConfig } from '@vmhub/core';
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
  const context: AdapterContext = {
    lease_id: leaseId, machine, template, signal: lifetime.signal,
    channel: () => (channel ??= provider.channel!(machine, template)),
    console: async () => { throw new VmhubError('CAPABILITY_UNAVAILABLE', '[vmhub] [provider-fake] the fake provider has no console', { source: 'provider-fake' }); },
  };
  return {
    context,
    effects: {
      typedText: async () => (await viewDesktop(context)).typed,
      clipboard: async () => (await viewDesktop(context)).clipboard,
      pointer: async () => (await viewDesktop(context)).pointer,
      keys: async () => (await viewDesktop(context)).keys,
      scrolls: async () => (await viewDesktop(context)).scrolls,
    },
    async dispose() {
      lifetime.abort();
      if (channel) await (await channel.catch(() => undefined))?.close();
      await provider.destroy(machine);
      if (!options.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
