/**
 * Restore and fork from a snapshot image (docker-snapshot.ts), both through createContainer —
 * the same container spec as any lease's, from the snapshot's image instead of the golden.
 *
 *   restore — the lease's container is replaced: everything is checked first (the container
 *             carries the lease's identity; the snapshot image carries the snapshot's identity and
 *             the lease's template), the container's own files are read (docker-machine-files.ts;
 *             not for a snapshot of this same machine, whose image holds them already) with its
 *             hostname and lease_secrets values, then it is destroyed by identity and a
 *             new one is created from the image with the same name, labels and create options,
 *             given those files back, started, and waited on until ready (the desktop session
 *             starts again: Xvfb into the same framebuffer directory and X socket directory,
 *             openbox; the readiness stages as at create). The container id changes: the new
 *             MachineRef is returned. A failure after the old container is gone leaves the lease
 *             without a machine (MACHINE_LOST on its next call), never with someone else's.
 *   fork    — create(from_snapshot): a new container from the image carrying the new lease's
 *             identity, a hostname, machine-id and SSH host key of its own, and the new lease's
 *             SSH key pair (the session writes the authorized key at start).
 */
import type { CreateRequest, MachineRef, SnapshotRef, TemplateConfig } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { createContainer, leaseContainer, type CreateExtras } from './docker-create.ts';
import { labelsOf, LABEL_LEASE } from './docker-identity.ts';
import { carriedMachineFiles, forkHostname, freshMachineFiles, putMachineFiles } from './docker-machine-files.ts';
import { LABEL_SNAPSHOT_SOURCE, snapshotImage } from './docker-snapshot-image.ts';
import { SSH_PORT_LABEL } from './golden-manifest.ts';
import { dockerTemplateOptions } from './options.ts';
import { workspaceOfLabels } from './docker-workspace.ts';

/** What the provider does around a container of a lease (docker-provider.ts). */
export interface LeaseMachineHooks {
  /** The lease's framebuffer directory and SSH setup, as at create. */
  extras(request: CreateRequest): Promise<CreateExtras>;
  /** Remove the container by identity (docker-destroy.ts). */
  destroy(machine: MachineRef): Promise<unknown>;
  /** Wait until the new container is ready (docker-ready.ts). */
  ready(machine: MachineRef, template: TemplateConfig, signal: AbortSignal): Promise<void>;
  /** Where a finished restore reports its phases (ms from the start of each). */
  log?(message: string, data: Record<string, unknown>): void;
}

export async function forkContainer(docker: DockerClient, request: CreateRequest & { from_snapshot: SnapshotRef }, extras: CreateExtras): Promise<MachineRef> {
  const image = await snapshotImage(docker, request.from_snapshot, request.template, request.signal);
  const files = freshMachineFiles(image.Config?.Labels?.[SSH_PORT_LABEL] !== undefined);
  return createContainer(docker, request, {
    ...extras,
    image: image.Id,
    hostname: forkHostname(request.lease_id),
    details: { ...extras.details, from_snapshot: request.from_snapshot.identity },
    beforeStart: (id) => putMachineFiles(docker, id, files, request.signal),
  });
}

export async function restoreContainer(docker: DockerClient, machine: MachineRef, snapshot: SnapshotRef, options: { template: TemplateConfig; signal: AbortSignal }, hooks: LeaseMachineHooks): Promise<MachineRef> {
  const { template, signal } = options;
  const began = performance.now();
  const phases: Record<string, number> = {};
  const mark = (name: string): void => { phases[`${name}_ms`] = Math.round(performance.now() - began); };
  const old = await leaseContainer(docker, machine, signal);
  const image = await snapshotImage(docker, snapshot, template, signal);
  // A snapshot of this very machine already holds its machine files (made once, never changed): nothing to carry.
  const own = image.Config?.Labels?.[LABEL_SNAPSHOT_SOURCE] === machine.identity;
  const files = own ? undefined : await carriedMachineFiles(docker, old.Id, image.Config?.Labels?.[SSH_PORT_LABEL] !== undefined);
  const env = old.Config?.Env ?? [];
  const secretValues = Object.fromEntries((dockerTemplateOptions(template).lease_secrets ?? []).flatMap((k) => {
    const e = env.find((v) => v.startsWith(`${k}=`));
    return e ? [[k, e.slice(k.length + 1)]] : [];
  }));
  // The lease's workspace volume is mounted again (a snapshot image never holds its content).
  const workspace = workspaceOfLabels(labelsOf(old));
  const request: CreateRequest = { lease_id: labelsOf(old)[LABEL_LEASE] ?? '', identity: machine.identity, template, signal, ...(workspace ? { workspace } : {}) };
  const extras = await hooks.extras(request);
  mark('checked');
  await hooks.destroy({ ...machine, external_id: old.Id });
  mark('old_removed');
  const fresh = await createContainer(docker, request, {
    ...extras,
    image: image.Id,
    hostname: old.Config?.Hostname || undefined,
    secretValues,
    details: { ...extras.details, restored_from: snapshot.identity },
    ...(files ? { beforeStart: (id: string) => putMachineFiles(docker, id, files, signal) } : {}),
  });
  mark('started');
  await hooks.ready(fresh, template, signal);
  mark('ready');
  hooks.log?.('docker machine put back to a snapshot', { identity: machine.identity, snapshot: snapshot.identity, ...phases });
  return fresh;
}
