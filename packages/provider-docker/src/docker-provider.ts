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
import { createContainer, inspectContainer } from './docker-create.ts';
import { destroyContainer } from './docker-destroy.ts';
import { framebufferOf, framebufferRoot, prepareFramebuffer, removeFramebuffer, x11DirOf } from './docker-framebuffer.ts';
import { listOwned } from './docker-list.ts';
import { waitReady } from './docker-ready.ts';
import { machineState } from './docker-state.ts';
import { dockerAvailability, dockerStatus } from './docker-status.ts';
import { dockerTemplateOptions, type DockerProviderOptions } from './options.ts';

export function dockerProviderMethods(options: DockerProviderOptions, context: ProviderContext): ProviderMethods {
  let client: DockerClient | undefined;
  // Lazy: the factory does no I/O and a bad DOCKER_HOST surfaces on first use.
  const docker = (): DockerClient => (client ??= new DockerClient({ host: options.docker_host, apiVersion: options.api_version }));
  // Worked out on first use, like the client (a stat of /dev/shm); a bad DOCKER_HOST turns it off here and surfaces on the client.
  let root: { dir: string | undefined } | undefined;
  const fbRoot = (): string | undefined => (root ??= { dir: (() => { try { return framebufferRoot(options); } catch { return undefined; } })() }).dir;

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
    async create(request) {
      const top = fbRoot();
      const dir = top === undefined ? undefined : prepareFramebuffer(top, request.identity, (msg) => context.log('warn', msg));
      try {
        return await createContainer(docker(), request, dir);
      } catch (err) {
        // No container, no directory; a container that exists is destroyed later, and its directory with it.
        if (dir && !(await inspectContainer(docker(), request.identity).catch(() => undefined))) removeFramebuffer(top, request.identity);
        throw err;
      }
    },
    ready: (machine, request) => waitReady(docker(), machine, request, options.desktop_user, x11DirOf(fbRoot(), machine.identity)),
    async destroy(machine) {
      const outcome = await destroyContainer(docker(), machine, context.log);
      if (outcome !== 'identity_mismatch') removeFramebuffer(fbRoot(), machine.identity);
      return outcome;
    },
    list: () => listOwned(docker(), context.identityPrefix),
    state: (machine) => machineState(docker(), machine),
    channel: (machine, template) => openDockerChannel(docker(), machine, template, options, context.log),
    secret: (machine, name, o) => leaseSecret(docker(), machine, name, o.template),
    framebuffer: async (machine) => framebufferOf(fbRoot(), machine),
    connect: (machine, port, o) => connectPort(docker(), machine, port, dockerTemplateOptions(o.template).user ?? options.desktop_user, o.signal),
    async close() {
      client?.close();
      client = undefined;
    },
  };
}
