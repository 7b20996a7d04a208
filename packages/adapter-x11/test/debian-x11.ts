/**
 * A REAL debian-x11 machine from @vmhub/provider-docker for one suite, and a channel that records
 * what the adapter runs through it. Needs the golden image (`vmhub-server golden build
 * debian-x11`): without it the suite FAILS with the provider's reason — it never skips silently.
 */
import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import type { GuestChannel, MachineRef, Provider } from '@vmhub/core';
import dockerProvider, { debianX11Template as template } from '@vmhub/provider-docker';

export interface DebianX11 {
  provider: Provider;
  machine: MachineRef;
  channel: GuestChannel;
}

/** Create and ready the machine `vmhub-<instance>-<lease>` and open its channel; on a failure nothing is left behind. */
export async function startDebianX11(instance: string, lease: string): Promise<DebianX11> {
  const provider = dockerProvider.create({}, { identityPrefix: `vmhub-${instance}-`, log: () => {} });
  const avail = await provider.availability(template);
  assert.equal(avail.availability, 'available', `golden image for ${template.id} not usable: ${avail.reason ?? ''} — build it with: vmhub-server golden build debian-x11`);
  const machine = await provider.create({ lease_id: lease, identity: `vmhub-${instance}-${lease}`, template, signal: AbortSignal.timeout(120_000) });
  try {
    await provider.ready(machine, { signal: AbortSignal.timeout(120_000), template, stage: () => {} });
    return { provider, machine, channel: await provider.channel!(machine, template) };
  } catch (err) {
    await stopDebianX11({ provider, machine });
    throw err;
  }
}

/** Close the channel, destroy the machine (it must be gone) and close the provider: whichever of them exist. */
export async function stopDebianX11(vm: Partial<DebianX11>): Promise<void> {
  await vm.channel?.close();
  if (vm.machine) assert.equal(await vm.provider!.destroy(vm.machine), 'destroyed');
  await vm.provider?.close?.();
}

/** `channel`, with every exec's argv pushed to `calls` (to check HOW the adapter did things: one command per click…). The suite closes `channel` itself. */
export function recordingChannel(channel: GuestChannel, calls: string[][]): GuestChannel {
  return {
    home: channel.home,
    exec: (argv, o) => { calls.push(argv); return channel.exec(argv, o); },
    putFile: (p, d, o) => channel.putFile(p, d, o),
    getFile: (p, o) => channel.getFile(p, o),
    ...(channel.putArchive ? { putArchive: (dir: string, tar: Readable, o?: { user?: string }) => channel.putArchive!(dir, tar, o) } : {}),
    close: async () => undefined,
  };
}
