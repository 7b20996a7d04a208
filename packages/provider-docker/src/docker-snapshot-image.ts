/**
 * Snapshot images: how a snapshot is found, listed and deleted. A snapshot is an image tagged
 * `vmhub/snapshot:<identity>` AND labelled `vmhub.identity=<identity>` (`vmhub-<instance>-snap-<id>`);
 * like a container's name and label, both must match before anything is trusted or removed.
 *   snapshotImage  — the image behind a SnapshotRef for a restore or a fork: found by its id (or
 *                    the tag), its identity read back, its template label equal to the lease's.
 *   listSnapshots  — every tagged snapshot image whose identity carries the instance's prefix.
 *   deleteSnapshot — the identity read back first (another identity: identity_mismatch, left
 *                    alone). Then the tag is removed: an image no container uses goes with it.
 *                    One that containers still use (forks made from it, a lease restored to it)
 *                    only loses its tag and label-visibility — it is no longer a snapshot, listed
 *                    or usable — and is removed when the last of those containers is destroyed
 *                    (releaseSnapshotImage, called after every destroy and restore).
 */
import { VmhubError, type DestroyOutcome, type OwnedSnapshot, type SnapshotRef, type TemplateConfig } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { LABEL_CREATED, LABEL_IDENTITY, LABEL_TEMPLATE } from './docker-identity.ts';

const SOURCE = 'provider-docker';
/** The repository snapshot images are tagged in; the tag is the snapshot's identity. */
export const SNAPSHOT_REPO = 'vmhub/snapshot';
/** Label naming the container identity a snapshot was taken of. */
export const LABEL_SNAPSHOT_SOURCE = 'vmhub.snapshot.source';

export interface ImageInspect {
  Id: string;
  RepoTags?: string[] | null;
  Size?: number;
  Created?: string;
  Config?: { Labels?: Record<string, string> | null; Env?: string[] | null };
}

export function snapshotTag(identity: string): string {
  return `${SNAPSHOT_REPO}:${identity}`;
}

export async function inspectImage(docker: DockerClient, ref: string, signal?: AbortSignal): Promise<ImageInspect | null> {
  const res = await docker.raw('GET', `/images/${encodeURIComponent(ref)}/json`, { signal });
  if (res.status === 404) return null;
  if (res.status >= 400) throw docker.httpError('GET', `/images/${ref}/json`, res.status, res.body);
  return JSON.parse(res.body.toString('utf8')) as ImageInspect;
}

/** True only when the image carries `identity` as its label AND its tag. */
export function imageCarries(image: ImageInspect, identity: string): boolean {
  return identity !== '' && image.Config?.Labels?.[LABEL_IDENTITY] === identity && (image.RepoTags ?? []).includes(snapshotTag(identity));
}

/** The image by the ref's id, else by its tag; null when neither is there. */
async function findImage(docker: DockerClient, ref: SnapshotRef, signal?: AbortSignal): Promise<ImageInspect | null> {
  return (ref.external_id ? await inspectImage(docker, ref.external_id, signal) : null) ?? (await inspectImage(docker, snapshotTag(ref.identity), signal));
}

/** The snapshot's image for a restore or fork onto a machine of `template`; NOT_FOUND / INVALID_REQUEST otherwise. */
export async function snapshotImage(docker: DockerClient, ref: SnapshotRef, template: TemplateConfig, signal?: AbortSignal): Promise<ImageInspect> {
  const image = await findImage(docker, ref, signal);
  if (!image || !imageCarries(image, ref.identity)) {
    throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] snapshot ${ref.identity} is not on the Docker host (no image ${snapshotTag(ref.identity)} carrying that identity): it was deleted`, { source: SOURCE, details: { snapshot: ref.identity } });
  }
  const of = image.Config?.Labels?.[LABEL_TEMPLATE];
  if (of !== template.id) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] snapshot ${ref.identity} is of template ${JSON.stringify(of ?? null)}, not ${template.id}: restore or fork it onto a lease of its own template`, { source: SOURCE, details: { snapshot: ref.identity, template: of, wanted: template.id } });
  }
  return image;
}

export async function listSnapshotImages(docker: DockerClient, identityPrefix: string): Promise<OwnedSnapshot[]> {
  const filters = JSON.stringify({ label: [LABEL_IDENTITY], reference: [SNAPSHOT_REPO] });
  const all = await docker.json<{ Id: string; RepoTags?: string[] | null; Labels?: Record<string, string> | null; Created?: number; Size?: number }[]>('GET', '/images/json', { query: { filters } });
  const out: OwnedSnapshot[] = [];
  for (const i of all) {
    const identity = i.Labels?.[LABEL_IDENTITY] ?? '';
    if (!identity.startsWith(identityPrefix) || !imageCarries({ Id: i.Id, RepoTags: i.RepoTags, Config: { Labels: i.Labels } }, identity)) continue;
    const created = Number(i.Labels?.[LABEL_CREATED]);
    out.push({
      identity,
      external_id: i.Id,
      created_at: Number.isFinite(created) && created > 0 ? created : Number(i.Created) * 1000,
      details: { tag: snapshotTag(identity), template: i.Labels?.[LABEL_TEMPLATE], source: i.Labels?.[LABEL_SNAPSHOT_SOURCE] },
    });
  }
  return out;
}

export async function deleteSnapshotImage(docker: DockerClient, ref: SnapshotRef, log: (msg: string, data?: Record<string, unknown>) => void): Promise<DestroyOutcome> {
  const image = await findImage(docker, ref);
  if (!image) return 'already_gone';
  if (!imageCarries(image, ref.identity)) {
    // Deleted before and kept for a container that still uses it: no longer a snapshot.
    if (image.Config?.Labels?.[LABEL_IDENTITY] === ref.identity && !(image.RepoTags ?? []).includes(snapshotTag(ref.identity))) return 'already_gone';
    log(`[vmhub] [${SOURCE}] refusing to delete image ${image.Id.slice(7, 19)}: it carries ${LABEL_IDENTITY}=${JSON.stringify(image.Config?.Labels?.[LABEL_IDENTITY] ?? null)} and tags ${JSON.stringify(image.RepoTags ?? [])}, expected ${ref.identity}`, { image: image.Id, identity: ref.identity });
    return 'identity_mismatch';
  }
  // By tag, not by id: the engine then removes the image only when no container uses it, and just untags it otherwise.
  const tag = snapshotTag(ref.identity);
  let res = await docker.raw('DELETE', `/images/${encodeURIComponent(tag)}`, { query: { noprune: false } });
  // 409: a container uses it and the engine wants force to drop its last tag. Forced by tag, the
  // engine untags it and keeps the image for a running container (releaseSnapshotImage removes it later).
  if (res.status === 409) res = await docker.raw('DELETE', `/images/${encodeURIComponent(tag)}`, { query: { force: true, noprune: false } });
  if (res.status === 404) return 'already_gone';
  if (res.status >= 400) throw docker.httpError('DELETE', `/images/${tag}`, res.status, res.body);
  return 'destroyed';
}

/**
 * After a container of this instance is removed: its image, when it is a snapshot image that was
 * deleted while the container used it (untagged, still labelled with this instance's snapshot
 * identity), is removed now unless another container still uses it. Never throws.
 */
export async function releaseSnapshotImage(docker: DockerClient, imageId: string | undefined, identityPrefix: string): Promise<void> {
  if (!imageId) return;
  try {
    const image = await inspectImage(docker, imageId);
    const identity = image?.Config?.Labels?.[LABEL_IDENTITY] ?? '';
    if (!image || !identity.startsWith(identityPrefix) || (image.RepoTags ?? []).length > 0) return;
    // 409 = another container (a fork, a restored lease) still uses it: the last one removes it.
    await docker.raw('DELETE', `/images/${image.Id}`, { query: { noprune: false } });
  } catch {
    // Left for `docker image prune`; nothing a lease is waiting on.
  }
}
