/**
 * What the agent may see of an engine error: typed, in guest terms. Host paths of the storage
 * driver (`/var/lib/docker/overlay2/<id>/merged/home/user/x`) become the guest path
 * (`/home/user/x`), container and exec ids become the machine's identity or `<id>`, and a
 * container that was removed or stopped behind vmhub's back is MACHINE_LOST, not NOT_FOUND or a
 * retryable LOCK_CONTENTION. The original text goes to the log at debug level.
 */
import { asVmhubError, VmhubError, type ProviderContext } from '@vmhub/core';

const SOURCE = 'provider-docker';

// <data-root>/<driver>/<layer id>[-init]/<merged|diff|work> + the guest path after it.
const LAYER_PATH = /(?:\/[^\s'"]*?)?\/(?:overlay2|overlay|aufs|btrfs|zfs|vfs|fuse-overlayfs|devicemapper)\/[0-9a-f]{12,}(?:-init)?\/(?:merged|diff|work|mnt|rootfs)(\/[^\s'":]*)?/g;
const DOCKER_ROOT = /\/var\/lib\/docker[^\s'":]*/g;
const LONG_ID = /\b[0-9a-f]{64}\b/g;

export interface Machine {
  containerId: string;
  identity: string;
}

/** `text` with host paths replaced by guest paths and engine ids by the identity. */
export function scrub(text: string, m: Machine): string {
  let out = text.replace(LAYER_PATH, (_all, guest: string | undefined) => guest || '/').replace(DOCKER_ROOT, '<docker data dir>');
  if (m.containerId) out = out.split(m.containerId).join(m.identity);
  out = out.replace(LONG_ID, '<id>');
  const short = m.containerId.slice(0, 12);
  if (short.length === 12) out = out.split(short).join(m.identity);
  return out;
}

/** The error a channel method answers for `err`, and the original at debug level. */
export function channelError(err: unknown, m: Machine, log: ProviderContext['log']): VmhubError {
  const e = asVmhubError(err, SOURCE);
  const status = e.details?.status;
  const engine = String(e.details?.docker_message ?? e.message);
  const clean = scrub(e.message, m);
  if (clean !== e.message || status !== undefined) log('debug', `[vmhub] [${SOURCE}] channel error on ${m.identity}: ${e.message}`, { container: m.containerId });
  if (status === 404 && /no such container/i.test(engine)) {
    return new VmhubError('MACHINE_LOST', `[vmhub] [${SOURCE}] the container of ${m.identity} no longer exists: it was removed outside vmhub`, { source: SOURCE, cause: err });
  }
  if (status === 409 && /is not running|is paused|is restarting/i.test(engine)) {
    const how = /paused/i.test(engine) ? 'paused' : 'stopped';
    return new VmhubError('MACHINE_LOST', `[vmhub] [${SOURCE}] the container of ${m.identity} is ${how}: it was ${how} outside vmhub`, { source: SOURCE, cause: err });
  }
  if (clean === e.message && e.source) return e;
  const details = e.details ? Object.fromEntries(Object.entries(e.details).map(([k, v]) => [k, typeof v === 'string' ? scrub(v, m) : v])) : undefined;
  return new VmhubError(e.code, clean, { retryable: e.retryable, hint: e.hint, source: e.source ?? SOURCE, details, cause: err });
}
