/**
 * secret(): a per-lease secret the template asked for (provider_options.lease_secrets), read back
 * from the container's own environment, where create put it. Nothing is stored elsewhere: the
 * secret lives and dies with the container. A name the template does not list is undefined, so a
 * template cannot read the container's other environment through this.
 */
import type { MachineRef, TemplateConfig } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { leaseContainer } from './docker-create.ts';
import { dockerTemplateOptions } from './options.ts';

export async function leaseSecret(docker: DockerClient, machine: MachineRef, name: string, template: TemplateConfig): Promise<string | undefined> {
  if (!(dockerTemplateOptions(template).lease_secrets ?? []).includes(name)) return undefined;
  const c = await leaseContainer(docker, machine);
  const env = c.Config?.Env ?? [];
  const entry = env.find((e) => e.startsWith(`${name}=`));
  return entry?.slice(name.length + 1);
}
