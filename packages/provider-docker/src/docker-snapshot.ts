/**
 * Snapshots of a container's filesystem (issue 31), `memory: false`: no running process comes
 * back. Checkpointing memory needs `docker checkpoint` (CRIU), which this provider does not use:
 * Debian bookworm's docker.io 20.10 offers it only with the daemon's experimental mode, and
 * bookworm's CRIU 3.17.1 (none in bookworm-backports) fails on kernels ≥ 6.13 before dumping
 * anything ("vdso: Unexpected rt vDSO area bounds", the vvar_vclock mapping; fixed upstream in
 * CRIU 4.1) — docs/providers/docker.md has the probe.
 *
 *   snapshotSupport — {memory: false} for every template (no I/O).
 *   snapshot        — `docker commit` with the container paused for the commit: the new image is
 *                     the container's writable layer on top of its golden (or of the snapshot it
 *                     was made from), tagged `vmhub/snapshot:<identity>` and labelled with the
 *                     snapshot's identity, its template, the source machine's identity and the
 *                     time. The container's own environment (the lease's public key, its
 *                     lease_secrets, its screen and framebuffer settings) is blanked in the
 *                     image's config — no secret of the lease is kept in the image; create sets
 *                     them again for whichever machine starts from it. size_bytes is the new
 *                     layer's size (the writable layer's; the golden is shared, not copied).
 *                     Framebuffer and X socket mounts, /dev/shm and /tmp/.X11-unix are not in
 *                     the layer.
 */
import { VmhubError, type MachineRef, type SnapshotResult, type TemplateConfig } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { leaseContainer } from './docker-create.ts';
import { labelsOf, LABEL_CREATED, LABEL_IDENTITY, LABEL_LEASE, LABEL_TEMPLATE } from './docker-identity.ts';
import { inspectImage, LABEL_SNAPSHOT_SOURCE, SNAPSHOT_REPO } from './docker-snapshot-image.ts';

const SOURCE = 'provider-docker';

export function dockerSnapshotSupport(): { memory: boolean } {
  return { memory: false };
}

/**
 * The image config's environment: the container's, with every variable the base image did not
 * set itself blanked (`NAME=`). The engine merges the container's environment into a commit's
 * config by name, so a variable can only be emptied, not left out.
 */
function blankedEnv(containerEnv: string[], baseEnv: string[]): string[] {
  const base = new Set(baseEnv);
  return containerEnv.map((e) => (base.has(e) ? e : `${e.split('=', 1)[0]}=`));
}

export async function snapshotContainer(docker: DockerClient, machine: MachineRef, request: { identity: string; template: TemplateConfig; signal: AbortSignal }): Promise<SnapshotResult> {
  const { identity, template, signal } = request;
  const c = await leaseContainer(docker, machine, signal);
  if (!c.State.Running) {
    throw new VmhubError('MACHINE_LOST', `[vmhub] [${SOURCE}] the container of ${machine.identity} is ${c.State.Status}: it was stopped outside vmhub`, { source: SOURCE });
  }
  const base = (c.Image ? await inspectImage(docker, c.Image, signal) : null)?.Config?.Env ?? [];
  const created = Date.now();
  const config = {
    Env: blankedEnv(c.Config?.Env ?? [], base),
    Labels: {
      [LABEL_IDENTITY]: identity,
      [LABEL_TEMPLATE]: template.id,
      [LABEL_CREATED]: String(created),
      [LABEL_LEASE]: labelsOf(c)[LABEL_LEASE] ?? '',
      [LABEL_SNAPSHOT_SOURCE]: machine.identity,
    },
  };
  const res = await docker.raw('POST', '/commit', {
    query: { container: c.Id, repo: SNAPSHOT_REPO, tag: identity, pause: true, comment: `vmhub snapshot ${identity} of ${machine.identity}` },
    body: config,
    signal,
    timeoutMs: 300_000,
  });
  if (res.status >= 400) {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] committing ${machine.identity} failed: ${docker.httpError('POST', '/commit', res.status, res.body).message.split(c.Id).join(machine.identity)}`, { source: SOURCE });
  }
  const { Id } = JSON.parse(res.body.toString('utf8')) as { Id: string };
  // The commit's own layer: the newest history entry (the image's Size counts the golden too).
  const history = await docker.json<{ Id: string; Size: number }[]>('GET', `/images/${Id}/history`, { signal });
  return {
    identity,
    external_id: Id,
    memory: false,
    size_bytes: history[0]?.Size ?? 0,
    details: { tag: `${SNAPSHOT_REPO}:${identity}`, source: machine.identity, template: template.id, created_at: created },
  };
}
