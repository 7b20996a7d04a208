/**
 * Workspaces as Docker named volumes: the volume is named by the workspace's identity
 * (`vmhub-<instance>-ws-<id>`) and labelled with it, the instance, the principal and the
 * workspace's name (LABEL_WORKSPACE marks it a workspace), so an operator reading `docker volume
 * ls` recognises it, and nothing of vmhub's removes it but deleteWorkspace after reading the
 * identity label back. It is mounted at the workspace's path; on its first mount (an empty
 * volume) Docker copies the image's content at that path into it, so the golden's home files
 * are there. A container carries the mount in two labels (volume, path) so a restore, which
 * recreates the container from a snapshot image, mounts it again. `docker rm -v` (destroy)
 * removes anonymous volumes only, never a named one.
 */
import { VmhubError, type DestroyOutcome, type WorkspaceRef } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { LABEL_IDENTITY } from './docker-identity.ts';

const SOURCE = 'provider-docker';
export const LABEL_WORKSPACE = 'vmhub.workspace';
const LABEL_INSTANCE = 'vmhub.instance';
const LABEL_PRINCIPAL = 'vmhub.principal';
/** On a container: the workspace volume it mounts, and where (restore mounts it again). */
export const LABEL_WORKSPACE_VOLUME = 'vmhub.workspace-volume';
export const LABEL_WORKSPACE_PATH = 'vmhub.workspace-path';

interface Volume {
  Name: string;
  Labels?: Record<string, string> | null;
}

/** Where a workspace goes by default: the guest user's home. */
export function dockerWorkspaceSupport(user: string): { path: string } {
  return { path: user === 'root' ? '/root' : `/home/${user}` };
}

async function inspectVolume(docker: DockerClient, name: string, signal?: AbortSignal): Promise<Volume | undefined> {
  const res = await docker.raw('GET', `/volumes/${encodeURIComponent(name)}`, { signal });
  if (res.status === 404) return undefined;
  if (res.status >= 400) throw docker.httpError('GET', `/volumes/${name}`, res.status, res.body);
  return JSON.parse(res.body.toString('utf8')) as Volume;
}

/**
 * Make the volume on first use (or find it), checking that an existing one carries the identity
 * label: a volume of that name that does not is refused, never mounted.
 */
export async function ensureWorkspaceVolume(docker: DockerClient, ws: WorkspaceRef, identityPrefix: string, signal: AbortSignal): Promise<void> {
  const found = await inspectVolume(docker, ws.identity, signal);
  if (found) {
    if (found.Labels?.[LABEL_IDENTITY] !== ws.identity) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] a volume named ${ws.identity} exists without the matching ${LABEL_IDENTITY} label: refusing to mount it; remove it by hand if it is not vmhub's`, { source: SOURCE });
    return;
  }
  const instance = identityPrefix.replace(/^vmhub-/, '').replace(/-$/, '');
  await docker.json('POST', '/volumes/create', {
    body: { Name: ws.identity, Labels: { [LABEL_IDENTITY]: ws.identity, [LABEL_WORKSPACE]: ws.name, [LABEL_INSTANCE]: instance, [LABEL_PRINCIPAL]: ws.principal } },
    signal,
  });
}

/** The container's mount of the workspace and the labels that record it. */
export function workspaceMount(ws: { identity: string; path: string }): { mount: Record<string, unknown>; labels: Record<string, string> } {
  return {
    mount: { Type: 'volume', Source: ws.identity, Target: ws.path },
    labels: { [LABEL_WORKSPACE_VOLUME]: ws.identity, [LABEL_WORKSPACE_PATH]: ws.path },
  };
}

/** The workspace a container mounts, from its labels (for a restore). */
export function workspaceOfLabels(labels: Record<string, string>): WorkspaceRef | undefined {
  const identity = labels[LABEL_WORKSPACE_VOLUME];
  const path = labels[LABEL_WORKSPACE_PATH];
  if (!identity || !path) return undefined;
  return { identity, path, name: '', principal: '' };
}

/** Delete the volume after reading its identity label back. */
export async function deleteWorkspaceVolume(docker: DockerClient, ws: WorkspaceRef): Promise<DestroyOutcome> {
  const found = await inspectVolume(docker, ws.identity);
  if (!found) return 'already_gone';
  if (found.Labels?.[LABEL_IDENTITY] !== ws.identity) return 'identity_mismatch';
  const res = await docker.raw('DELETE', `/volumes/${encodeURIComponent(ws.identity)}`);
  if (res.status === 404) return 'already_gone';
  if (res.status === 409) throw new VmhubError('LOCK_CONTENTION', `[vmhub] [${SOURCE}] volume ${ws.identity} is still mounted by a container: ${res.body.toString('utf8').trim()}`, { source: SOURCE, hint: 'Wait until the lease that held the workspace has its machine destroyed, then retry.' });
  if (res.status >= 400) throw docker.httpError('DELETE', `/volumes/${ws.identity}`, res.status, res.body);
  return 'destroyed';
}

/** Bytes the volume holds (the engine's disk-usage report); undefined when it does not exist. */
export async function workspaceVolumeBytes(docker: DockerClient, ws: WorkspaceRef): Promise<number | undefined> {
  const df = await docker.json<{ Volumes?: { Name: string; UsageData?: { Size?: number } }[] | null }>('GET', '/system/df', { query: { type: 'volume' } });
  const v = (df.Volumes ?? []).find((x) => x.Name === ws.identity);
  if (!v) return undefined;
  const size = v.UsageData?.Size;
  return typeof size === 'number' && size >= 0 ? size : 0;
}
