/**
 * Create (or adopt) the container for a lease. Idempotent per identity: a container with the
 * identity as name AND label is reused; one with the name but not the label is refused.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { VmhubError, type CreateRequest, type MachineRef, type TemplateConfig } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { carriesIdentity, LABEL_CREATED, LABEL_IDENTITY, LABEL_LEASE, LABEL_TEMPLATE, type ContainerSummary } from './docker-identity.ts';
import { goldenBuildCommand, goldenImageTag } from './golden-build.ts';
import { goldenNames } from './golden-manifest.ts';
import { FB_MOUNT, X11_DIR, X11_MOUNT } from './docker-framebuffer.ts';
import { dockerTemplateOptions } from './options.ts';
import { workspaceMount } from './docker-workspace.ts';

const SOURCE = 'provider-docker';

interface Inspect extends ContainerSummary {
  Id: string;
  /** The image id (sha256:…) the container was created from. */
  Image?: string;
  Config?: { Labels?: Record<string, string> | null; Env?: string[] | null; Hostname?: string };
  State: { Running: boolean; Paused?: boolean; Restarting?: boolean; Status: string; ExitCode?: number; Error?: string; StartedAt?: string };
  /** The writable layer's bytes: only when inspected with `size` (it costs the engine a walk of the layer). */
  SizeRw?: number;
}

/**
 * The fix for a missing image, said the same way by create and availability. `golden build`
 * is offered only for the exact tag it builds (this package's golden at its current manifest);
 * a template naming any other tag (its own image, or an older vmhub/<golden>:<hash>) is told
 * that tag is not what `golden build` makes, and how to get it.
 */
export function missingImageReason(image: string): string {
  const m = /^vmhub\/([a-z0-9-]+):([0-9a-f]{12})$/.exec(image);
  const golden = m && goldenNames().includes(m[1]!) ? m[1]! : undefined;
  if (golden && goldenImageTag(golden) === image) return `image ${image} is not built: run \`${goldenBuildCommand(golden)}\``;
  if (golden) {
    return `image ${image} is not on the Docker host, and \`${goldenBuildCommand(golden)}\` builds ${goldenImageTag(golden)} (this version's ${golden}), not this tag: set the template's golden to ${goldenImageTag(golden)} and build that, or load ${image} on the Docker host (docker load / docker pull)`;
  }
  return `image ${image} is not on the Docker host and is not a vmhub golden (\`vmhub-server golden build\` cannot make it): docker pull ${image} (or build and tag it) on the Docker host`;
}

function hostConfig(template: TemplateConfig, network: string | undefined, framebufferDir: string | undefined, workspace: Record<string, unknown> | undefined): Record<string, unknown> {
  const mounts = [
    ...(framebufferDir ? [{ Type: 'bind', Source: framebufferDir, Target: FB_MOUNT }, { Type: 'bind', Source: join(framebufferDir, X11_DIR), Target: X11_MOUNT }] : []),
    ...(workspace ? [workspace] : []),
  ];
  const hc: Record<string, unknown> = {
    // Off unless the template opts in (provider_options.network: "bridge" or a network name).
    NetworkMode: network ?? 'none',
    PortBindings: {},
    PublishAllPorts: false,
    ShmSize: 256 * 1024 * 1024,
    PidsLimit: 4096,
    RestartPolicy: { Name: 'no' },
    ...(mounts.length > 0 ? { Mounts: mounts } : {}),
  };
  const cpus = template.resources?.cpus;
  if (cpus) hc.NanoCpus = Math.round(cpus * 1e9);
  const mb = template.resources?.memory_mb;
  if (mb) {
    hc.Memory = mb * 1024 * 1024;
    hc.MemorySwap = mb * 1024 * 1024;
  }
  return hc;
}

async function inspect(docker: DockerClient, ref: string, signal?: AbortSignal, query?: { size: true }): Promise<Inspect | null> {
  const res = await docker.raw('GET', `/containers/${encodeURIComponent(ref)}/json`, { signal, query });
  if (res.status === 404) return null;
  if (res.status >= 400) throw docker.httpError('GET', `/containers/${ref}/json`, res.status, res.body);
  return JSON.parse(res.body.toString('utf8')) as Inspect;
}

async function start(docker: DockerClient, id: string, identity: string, signal: AbortSignal): Promise<void> {
  const res = await docker.raw('POST', `/containers/${id}/start`, { signal });
  // Named by identity, not by engine id: this message reaches the agent (vm_lease_status).
  if (res.status !== 204 && res.status !== 304) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] container ${identity} did not start: ${docker.httpError('POST', `/containers/${identity}/start`, res.status, res.body).message.split(id).join(identity)}`, { source: SOURCE });
}

function ref(c: Inspect, identity: string, image: string, details: Record<string, unknown> = {}): MachineRef {
  return { identity, external_id: c.Id, details: { name: identity, image, ...details } };
}

/**
 * A container already named `identity` (a retried create, or a name taken by something else):
 * adopted, and started if stopped, only when it carries the identity label too.
 */
async function adopt(docker: DockerClient, existing: Inspect, identity: string, image: string, signal: AbortSignal, details?: Record<string, unknown>): Promise<MachineRef> {
  if (!carriesIdentity(existing, identity)) {
    throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] a container named ${identity} exists without the matching ${LABEL_IDENTITY} label: refusing to adopt it; remove it by hand if it is not vmhub's`, { source: SOURCE, details: { container: existing.Id } });
  }
  if (!existing.State.Running) await start(docker, existing.Id, identity, signal);
  return ref(existing, identity, image, details);
}

/** What the provider adds to a container beyond the template: made per lease at create. */
export interface CreateExtras {
  /** The host directory made for this machine's framebuffer (docker-framebuffer.ts), if any. */
  framebufferDir?: string;
  /** More container environment (`NAME=value`): the lease's SSH public key (docker-ssh.ts). */
  env?: string[];
  /** More MachineRef.details (no secrets: they are stored). */
  details?: Record<string, unknown>;
  /** Start from this image instead of the template's golden: a snapshot's (docker-snapshot.ts). */
  image?: string;
  /** The container's hostname; default `vmhub`. A fork gets its own (docker-machine-files.ts). */
  hostname?: string;
  /** Values for the template's lease_secrets instead of new random ones: a restore keeps the lease's. */
  secretValues?: Record<string, string>;
  /** Run between create and start (a fork's or a restore's per-machine files); a throw leaves the container created, not started. */
  beforeStart?: (containerId: string) => Promise<void>;
}

/**
 * Creates first and looks only on a name conflict (409): a create is the common case, and a look
 * before it cost a round trip on every lease.
 */
export async function createContainer(docker: DockerClient, request: CreateRequest, extras: CreateExtras = {}, attempt = 0): Promise<MachineRef> {
  const { framebufferDir } = extras;
  const { identity, template, signal } = request;
  const image = extras.image ?? template.golden;
  const opts = dockerTemplateOptions(template);
  // The workspace volume (docker-workspace.ts), made by the provider before this call.
  const ws = request.workspace ? workspaceMount(request.workspace) : undefined;
  const body = {
    Image: image,
    Hostname: extras.hostname ?? 'vmhub',
    Env: [
      `VMHUB_SCREEN=${opts.screen}`,
      ...(framebufferDir ? [`VMHUB_FBDIR=${FB_MOUNT}`] : []),
      ...Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`),
      // Made here, for this lease only; read back from the container by secret() (docker-secret.ts).
      ...(opts.lease_secrets ?? []).map((k) => `${k}=${extras.secretValues?.[k] ?? randomBytes(24).toString('base64url')}`),
      ...(extras.env ?? []),
    ],
    Labels: {
      [LABEL_IDENTITY]: identity,
      [LABEL_LEASE]: request.lease_id,
      [LABEL_TEMPLATE]: template.id,
      [LABEL_CREATED]: String(Date.now()),
      ...ws?.labels,
    },
    Tty: false,
    OpenStdin: false,
    HostConfig: hostConfig(template, opts.network, framebufferDir, ws?.mount),
  };
  const res = await docker.raw('POST', '/containers/create', { query: { name: identity }, body, signal });
  if (res.status === 409) {
    const existing = await inspect(docker, identity, signal);
    if (existing) return adopt(docker, existing, identity, image, signal, extras.details);
    // Removed between the conflict and the look: create once more.
    if (attempt === 0) return createContainer(docker, request, extras, 1);
  }
  if (res.status === 404) {
    throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] ${missingImageReason(image)}`, { source: SOURCE, hint: 'Ask the operator to build the golden image, then create a new lease.', details: { image } });
  }
  if (res.status >= 400) throw new VmhubError('PROVISION_FAILED', docker.httpError('POST', '/containers/create', res.status, res.body).message, { source: SOURCE });
  const { Id } = JSON.parse(res.body.toString('utf8')) as { Id: string };
  await extras.beforeStart?.(Id);
  await start(docker, Id, identity, signal);
  return { identity, external_id: Id, details: { name: identity, image, ...extras.details } };
}

export { inspect as inspectContainer };

/**
 * The lease's container, re-read by id (or name) and trusted only when it carries the identity
 * (label AND name), as destroy trusts it; else MACHINE_LOST (removed outside vmhub). What every
 * operation on a live lease's container checks first (channel, secret, snapshot, restore, restart,
 * stats, logs).
 */
export async function leaseContainer(docker: DockerClient, machine: MachineRef, signal?: AbortSignal, query?: { size: true }): Promise<Inspect> {
  const c = await inspect(docker, machine.external_id || machine.identity, signal, query);
  if (!c || !carriesIdentity(c, machine.identity)) {
    throw new VmhubError('MACHINE_LOST', `[vmhub] [${SOURCE}] no container carries identity ${machine.identity}: it was removed outside vmhub`, { source: SOURCE });
  }
  return c;
}
