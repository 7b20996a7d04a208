/**
 * The docker provider's methods. One Engine API client per provider instance (keep-alive socket
 * pool); channels open their own hijacked exec connection to the in-guest helper.
 */
import { VmhubError, type GuestChannel, type MachineRef, type ProviderContext, type ProviderMethods, type TemplateConfig } from '@vmhub/core';
import { DockerChannel } from './docker-channel.ts';
import { DockerClient } from './docker-client.ts';
import { createContainer, inspectContainer } from './docker-create.ts';
import { destroyContainer } from './docker-destroy.ts';
import { carriesIdentity } from './docker-identity.ts';
import { listOwned } from './docker-list.ts';
import { waitReady } from './docker-ready.ts';
import { dockerAvailability, dockerStatus } from './docker-status.ts';
import type { DockerProviderOptions } from './options.ts';

export function dockerProviderMethods(options: DockerProviderOptions, context: ProviderContext): ProviderMethods {
  let client: DockerClient | undefined;
  // Lazy: the factory does no I/O and a bad DOCKER_HOST surfaces on first use.
  const docker = (): DockerClient => (client ??= new DockerClient({ host: options.docker_host, apiVersion: options.api_version }));

  return {
    async status() {
      try {
        return await dockerStatus(docker());
      } catch (err) {
        return { ok: false, reason: (err as Error).message };
      }
    },
    async availability(template) {
      try {
        return await dockerAvailability(docker(), template);
      } catch (err) {
        return { availability: 'unavailable', reason: (err as Error).message };
      }
    },
    create: (request) => createContainer(docker(), request),
    ready: (machine, request) => waitReady(docker(), machine, request, options.desktop_user),
    destroy: (machine) => destroyContainer(docker(), machine, context.log),
    list: () => listOwned(docker(), context.identityPrefix),
    async channel(machine: MachineRef, template: TemplateConfig): Promise<GuestChannel> {
      const c = await inspectContainer(docker(), machine.external_id || machine.identity);
      if (!c || !carriesIdentity(c, machine.identity)) {
        throw new VmhubError('NOT_FOUND', `[vmhub] [provider-docker] no running container carries identity ${machine.identity}: the machine is gone; create a new lease`, { source: 'provider-docker' });
      }
      if (!c.State.Running) throw new VmhubError('LEASE_NOT_READY', `[vmhub] [provider-docker] container ${machine.identity} is ${c.State.Status}, not running`, { source: 'provider-docker' });
      const user = template.provider_options?.user;
      return DockerChannel.open(docker(), c.Id, {
        desktopUser: typeof user === 'string' && user ? user : options.desktop_user,
        maxFileBytes: options.max_file_bytes,
        maxArchiveBytes: options.max_archive_bytes,
        useHelper: options.exec_helper,
        log: context.log,
      });
    },
    async close() {
      client?.close();
      client = undefined;
    },
  };
}
