/**
 * The docker provider's methods, wired from one file per role. One Engine API client per
 * provider instance (keep-alive socket pool to the daemon, not to any guest); each channel()
 * opens its own hijacked exec connection to the in-guest helper, which core closes, and each
 * connect() its own exec running a port bridge. Per-lease SSH keys (goldens with sshd) are held in
 * one LeaseSecrets per provider instance, under the context's state directory (docker-ssh.ts).
 * Snapshots are committed images (docker-snapshot.ts, docker-snapshot-image.ts); restore and fork
 * create from them through the same createContainer (docker-restore.ts). Workspaces are named
 * volumes mounted at the user's home (docker-workspace.ts). restart() restarts the container in
 * place (docker-restart.ts); stats() and logs() read the engine's (docker-stats.ts, docker-logs.ts).
 */
import { dirname } from 'node:path';
import { LeaseSecrets, type CreateRequest, type MachineRef, type ProviderContext, type ProviderMethods, type TemplateConfig } from '@vmhub/core';
import { openDockerChannel } from './docker-channel.ts';
import { DockerClient } from './docker-client.ts';
import { connectPort } from './docker-connect.ts';
import { leaseSecret } from './docker-secret.ts';
import { createContainer, inspectContainer } from './docker-create.ts';
import { destroyContainer } from './docker-destroy.ts';
import { framebufferOf, framebufferRoot, prepareFramebuffer, removeFramebuffer, x11DirOf } from './docker-framebuffer.ts';
import { listOwned } from './docker-list.ts';
import { forkContainer, restoreContainer } from './docker-restore.ts';
import { dockerSnapshotSupport, snapshotContainer } from './docker-snapshot.ts';
import { deleteSnapshotImage, listSnapshotImages, releaseSnapshotImage } from './docker-snapshot-image.ts';
import { waitReady } from './docker-ready.ts';
import { containerLogs } from './docker-logs.ts';
import { dockerRestartSupport, restartContainer } from './docker-restart.ts';
import { containerStats } from './docker-stats.ts';
import { machineState } from './docker-state.ts';
import { dockerAvailability, dockerStatus } from './docker-status.ts';
import { ImageSshPorts, leaseSshSetup, sshAccessOf } from './docker-ssh.ts';
import { dockerTemplateOptions, type DockerProviderOptions } from './options.ts';
import { deleteWorkspaceVolume, dockerWorkspaceSupport, ensureWorkspaceVolume, workspaceVolumeBytes } from './docker-workspace.ts';

export function dockerProviderMethods(options: DockerProviderOptions, context: ProviderContext): ProviderMethods {
  let client: DockerClient | undefined;
  // Lazy: the factory does no I/O and a bad DOCKER_HOST surfaces on first use.
  const docker = (): DockerClient => (client ??= new DockerClient({ host: options.docker_host, apiVersion: options.api_version }));
  // Worked out on first use, like the client (a stat of /dev/shm); a bad DOCKER_HOST turns it off here and surfaces on the client.
  let root: { dir: string | undefined } | undefined;
  const fbRoot = (): string | undefined => (root ??= { dir: (() => { try { return framebufferRoot(options); } catch { return undefined; } })() }).dir;
  const secrets = LeaseSecrets.forProvider('provider-docker', context.stateDir);
  // The golden's sshd label, as availability() (asked before every create) last read it.
  const sshPorts = new ImageSshPorts();
  const userOf = (template: TemplateConfig): string => dockerTemplateOptions(template).user ?? options.desktop_user;
  const release = (image: string | undefined): Promise<void> => releaseSnapshotImage(docker(), image, context.identityPrefix);
  const ready = (machine: MachineRef, request: Parameters<ProviderMethods['ready']>[1]): Promise<void> => waitReady(docker(), machine, request, options.desktop_user, x11DirOf(fbRoot(), machine.identity));

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
        return await dockerAvailability(docker(), template, (image) => sshPorts.seen(template.golden, image));
      } catch (err) {
        return { availability: 'unavailable', reason: (err as Error).message };
      }
    },
    async create(request) {
      const top = fbRoot();
      const dir = top === undefined ? undefined : prepareFramebuffer(top, request.identity, (msg) => context.log('warn', msg));
      try {
        const ssh = await leaseSshSetup(docker(), sshPorts, secrets, request, userOf(request.template));
        const extras = { framebufferDir: dir, ...ssh };
        if (request.from_snapshot) return await forkContainer(docker(), { ...request, from_snapshot: request.from_snapshot }, extras);
        if (request.workspace) await ensureWorkspaceVolume(docker(), request.workspace, context.identityPrefix, request.signal);
        return await createContainer(docker(), request, extras);
      } catch (err) {
        // No container, no directory and no key; a container that exists is destroyed later, and they with it.
        if (!(await inspectContainer(docker(), request.identity).catch(() => undefined))) {
          if (dir) removeFramebuffer(top, request.identity);
          secrets.drop(request.identity);
        }
        throw err;
      }
    },
    ready,
    async destroy(machine) {
      const outcome = await destroyContainer(docker(), machine, context.log, release);
      if (outcome !== 'identity_mismatch') {
        removeFramebuffer(fbRoot(), machine.identity);
        secrets.drop(machine.identity);
      }
      return outcome;
    },
    list: () => listOwned(docker(), context.identityPrefix),
    state: (machine) => machineState(docker(), machine),
    channel: (machine, template) => openDockerChannel(docker(), machine, template, options, context.log),
    secret: (machine, name, o) => leaseSecret(docker(), machine, name, o.template),
    framebuffer: async (machine) => framebufferOf(fbRoot(), machine),
    connect: (machine, port, o) => connectPort(docker(), machine, port, userOf(o.template), o.signal),
    sshAccess: async (machine, o) => sshAccessOf(secrets, machine, userOf(o.template)),
    pinSshHostKey: async (machine, fingerprint) => secrets.pinHostKey(machine.identity, fingerprint),
    snapshotSupport: () => dockerSnapshotSupport(),
    snapshot: (machine, request) => snapshotContainer(docker(), machine, request),
    restore: (machine, snapshot, o) => restoreContainer(docker(), machine, snapshot, o, {
      // The lease keeps its framebuffer directory (made at create) and its key pair (held by identity).
      async extras(request: CreateRequest) {
        const x11 = x11DirOf(fbRoot(), request.identity);
        return { framebufferDir: x11 === undefined ? undefined : dirname(x11), ...(await leaseSshSetup(docker(), sshPorts, secrets, request, userOf(request.template))) };
      },
      destroy: (m) => destroyContainer(docker(), m, context.log, release),
      ready: (m, template, signal) => ready(m, { template, signal, stage: () => {} }),
      log: (message, data) => context.log('info', message, data),
    }),
    workspaceSupport: (template) => dockerWorkspaceSupport(userOf(template)),
    deleteWorkspace: (ws) => deleteWorkspaceVolume(docker(), ws),
    workspaceBytes: (ws) => workspaceVolumeBytes(docker(), ws),
    restartSupport: () => dockerRestartSupport(),
    restart: (machine, request) => restartContainer(docker(), machine, request),
    stats: (machine, o) => containerStats(docker(), machine, o.signal),
    logs: (machine, o) => containerLogs(docker(), machine, o),
    deleteSnapshot: (snapshot) => deleteSnapshotImage(docker(), snapshot, (msg, data) => context.log('warn', msg, data)),
    listSnapshots: () => listSnapshotImages(docker(), context.identityPrefix),
    async close() {
      client?.close();
      client = undefined;
    },
  };
}
