/**
 * secret(): a per-lease secret the template asked for (provider_options.lease_secrets), read back
 * from the container's own environment, where create put it. Nothing is stored elsewhere: the
 * secret lives and dies with the container. A name the template does not list is undefined, so a
 * template cannot read the container's other environment through this.
 */
import { VmhubError, type MachineRef, type TemplateConfig } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { inspectContainer } from './docker-create.ts';
import { carriesIdentity } from './docker-identity.ts';
import { dockerTemplateOptions } from './options.ts';

export async function leaseSecret(docker: DockerClient, machine: MachineRef, name: string, template: TemplateConfig): Promise<string | undefined> {
  if (!(dockerTemplateOptions(template).lease_secrets ?? []).includes(name)) return undefined;
  const c = await inspectContainer(docker, machine.external_id || machine.identity);
  if (!c || !carriesIdentity(c, machine.identity)) throw new VmhubError('MACHINE_LOST', `[vmhub] [provider-docker] no container carries identity ${machine.identity}: it was removed outside vmhub`, { source: 'provider-docker' });
  const env = (c as { Config?: { Env?: string[] | null } }).Config?.Env ?? [];
  const entry = env.find((e) => e.startsWith(`${name}=`));
  return entry?.slice(name.length + 1);
}
