/**
 * How a vmhub snapshot looks in Proxmox, and how it is found again. A snapshot is a PVE snapshot
 * of the lease's VM (`POST …/snapshot`, RAM included), named `vmhub_<32 hex of SHA-256(identity)>`
 * (a pve-configid of 38 chars: deterministic, so a repeated request finds its own) and carrying
 * its identity `vmhub-<instance>-snap-<id>` as a line `identity: <identity>` of its description —
 * the only thing trusted: a name or VMID alone never is.
 *
 * A PVE snapshot lives inside its VM. So that snapshots outlive their lease, destroy() keeps a VM
 * that still holds vmhub snapshots as a *holder*: stopped, its lease tag replaced by the tag
 * `vmhub-<instance>-snapshots` (which list() skips, so it is no lease's machine any more); the
 * holder is destroyed with its last vmhub snapshot. The SnapshotRef's `external_id` is
 * `<vmid>/<snapname>`, `node` the VM's node, `details.endpoint` its endpoint.
 */
import { createHash } from 'node:crypto';
import { VmhubError, type SnapshotRef } from '@vmhub/core';
import { listGuests } from './cluster.ts';
import { isForbidden, isGone, SOURCE, toVmhubError } from './pve-errors.ts';
import type { Runtime } from './runtime.ts';
import { identityTag } from './template-options.ts';
import type { VmAt } from './vm-steps.ts';

/** One entry of `GET …/snapshot` (the `current` pseudo entry left out). */
export interface PveSnapshot {
  name: string;
  description?: string;
  parent?: string;
  snaptime?: number;
  vmstate?: number | boolean;
}

export function snapName(identity: string): string {
  return `vmhub_${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`;
}

export function snapDescription(identity: string, machineIdentity: string, templateId: string): string {
  return `Managed by vmhub; deleted with its vmhub snapshot.\nidentity: ${identity}\nmachine: ${machineIdentity}\ntemplate: ${templateId}\ncreated: ${new Date().toISOString()}`;
}

/** The identity a snapshot's description carries, if any. */
export function identityOf(snap: PveSnapshot | undefined): string | undefined {
  return /^identity: (\S+)$/m.exec(snap?.description ?? '')?.[1];
}

/**
 * A snapshot's template (its description's `template:` line) must be the one a restore or fork
 * asks for: a machine of another template does not come back from it (INVALID_REQUEST).
 */
export function assertTemplate(snap: PveSnapshot, ref: SnapshotRef, templateId: string): void {
  const made = /^template: (\S+)$/m.exec(snap.description ?? '')?.[1];
  if (made !== undefined && made !== templateId) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] snapshot ${ref.identity} is of template "${made}", not "${templateId}"`, { source: SOURCE, details: { snapshot_template: made, template: templateId } });
  }
}

/** Snapshots whose identity carries this instance's prefix. */
export function vmhubSnapshots(snaps: PveSnapshot[], prefix: string): PveSnapshot[] {
  return snaps.filter((s) => identityOf(s)?.startsWith(prefix) === true);
}

/** The tag of a VM kept only for its snapshots. */
export function holderTag(prefix: string): string {
  return `${identityTag(prefix)}snapshots`;
}

/** Tags in this instance's snapshot namespace (holders), which name no lease's machine. */
export function isSnapshotTag(tag: string, prefix: string): boolean {
  return tag.startsWith(`${identityTag(prefix)}snap`);
}

export async function readSnapshots(vm: VmAt, signal?: AbortSignal): Promise<PveSnapshot[]> {
  const all = await vm.client.get<PveSnapshot[]>(`/nodes/${vm.node}/qemu/${vm.vmid}/snapshot`, {}, { signal });
  return all.filter((s) => s.name !== 'current');
}

export function snapshotRefOf(vm: VmAt, snap: PveSnapshot, identity: string): SnapshotRef {
  return {
    identity,
    external_id: `${vm.vmid}/${snap.name}`,
    node: vm.node,
    details: { endpoint: vm.client.endpoint.id, node: vm.node, vmid: vm.vmid, snapname: snap.name, vmstate: snap.vmstate === 1 || snap.vmstate === true },
  };
}

export type FoundSnapshot =
  | { kind: 'found'; vm: VmAt; snap: PveSnapshot; all: PveSnapshot[] }
  | { kind: 'mismatch'; vm: VmAt; found: string | undefined }
  | { kind: 'gone' };

/**
 * Read a SnapshotRef's snapshot back from its VM (found by VMID across the endpoint's nodes if the
 * ref's node no longer has it): `gone` when the VM or the snapshot is not there, `mismatch` when
 * the snapshot's description carries another identity.
 */
export async function findSnapshot(rt: Runtime, ref: SnapshotRef, signal?: AbortSignal): Promise<FoundSnapshot> {
  const m = /^(\d+)\/([A-Za-z][A-Za-z0-9_-]+)$/.exec(ref.external_id);
  if (!m) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] "${ref.external_id}" is not a Proxmox snapshot reference (<vmid>/<snapname>)`, { source: SOURCE });
  const vmid = Number(m[1]);
  const snapname = m[2];
  const d = ref.details ?? {};
  const client = rt.client(typeof d.endpoint === 'string' ? d.endpoint : undefined) ?? (rt.clients.length === 1 ? rt.clients[0] : undefined);
  if (!client) return { kind: 'gone' };
  let node = ref.node ?? (typeof d.node === 'string' ? d.node : undefined);
  let all: PveSnapshot[] | undefined;
  const absent = (err: unknown): boolean => isGone(err) || isForbidden(err);
  if (node) {
    try {
      all = await readSnapshots({ client, node, vmid }, signal);
    } catch (err) {
      if (!absent(err)) throw toVmhubError(err, `reading the snapshots of VM ${vmid}`);
    }
  }
  if (!all) {
    const guest = (await listGuests(client).catch((err: unknown) => { throw toVmhubError(err, `finding VM ${vmid}`); })).find((g) => g.vmid === vmid);
    if (!guest) return { kind: 'gone' };
    node = guest.node;
    try {
      all = await readSnapshots({ client, node, vmid }, signal);
    } catch (err) {
      if (absent(err)) return { kind: 'gone' };
      throw toVmhubError(err, `reading the snapshots of VM ${vmid}`);
    }
  }
  const vm: VmAt = { client, node: node!, vmid };
  const snap = all.find((s) => s.name === snapname);
  if (!snap) return { kind: 'gone' };
  const found = identityOf(snap);
  if (found !== ref.identity) return { kind: 'mismatch', vm, found };
  return { kind: 'found', vm, snap, all };
}

/** findSnapshot for a use of the snapshot (restore, fork): anything but `found` is NOT_FOUND. */
export async function requireSnapshot(rt: Runtime, ref: SnapshotRef, signal?: AbortSignal): Promise<{ vm: VmAt; snap: PveSnapshot }> {
  const f = await findSnapshot(rt, ref, signal);
  if (f.kind === 'found') return f;
  const why = f.kind === 'gone' ? 'no longer exists' : `carries another identity (${f.found ?? 'none'})`;
  if (f.kind === 'mismatch') rt.context.log('warn', 'refusing to use a Proxmox snapshot that does not carry the expected identity', { external_id: ref.external_id, expected: ref.identity, found: f.found ?? null });
  throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] snapshot ${ref.identity} (${ref.external_id}) ${why}`, { source: SOURCE, details: { external_id: ref.external_id } });
}

const queues = new Map<string, Promise<unknown>>();

/**
 * Run `fn` after every earlier call for the same VM in this process has settled: destroy()'s
 * decision to keep a holder and deleteSnapshot()'s decision to remove one must not interleave.
 */
export function onVmInTurn<T>(vm: VmAt, fn: () => Promise<T>): Promise<T> {
  const key = `${vm.client.endpoint.id}/${vm.vmid}`;
  const prev = queues.get(key) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.catch(() => undefined);
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}
