/**
 * The docker provider's methods, wired from one file per role. One Engine API client per
 * provider instance (keep-alive socket pool to the daemon, not to any guest); each channel()
 * opens its own hijacked exec connection to the in-guest helper, which core closes, and each
 * connect() its own exec running a port bridge.
 */
import type { ProviderContext, ProviderMethods } from '@vmhub/core';
import { openDockerChannel } from './docker-channel.ts';
import { DockerClient } from './docker-client.ts';
import { connectPort } from './docker-connect.ts';
import { leaseSecret } from './docker-secret.ts';
import { createContainer } from './docker-create.ts';
import { destroyContainer } from './docker-destroy.ts';
import { listOwned } from './docker-list.ts';
import { waitReady } from './docker-ready.ts';
import { machineState } from './docker-state.ts';
import { dockerAvailability, dockerStatus } from './docker-status.ts';
import { dockerTemplateOptions, type DockerProviderOptions } from './options.ts';

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
    state: (machine) => machineState(docker(), machine),
    channel: (machine, template) => openDockerChannel(docker(), machine, template, options, context.log),
    secret: (machine, name, o) => leaseSecret(docker(), machine, name, o.template),
    connect: (machine, port, o) => connectPort(docker(), machine, port, dockerTemplateOptions(o.template).user ?? options.desktop_user, o.signal),
    async close() {
      client?.close();
      client = undefined;
    },
  };
}
