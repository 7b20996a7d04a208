/**
 * VMID allocation and the clone itself. `/cluster/nextid` reserves nothing, so ids handed out to
 * this process's in-flight clones are kept aside, and a clone that finds its VMID taken retries
 * with a fresh one (bounded). A clone request whose answer was lost (connection dropped, 596) is
 * not blindly repeated: the new VMID is re-read, and a VM there whose description carries this
 * lease's identity is adopted; otherwise the clone is tried again.
 */
import { VmhubError } from '@vmhub/core';
import { vmidFree } from './cluster.ts';
import { backoffMs, sleep, type PveClient } from './pve-client.ts';
import { isForbidden, isGone, isLock, isPveApiError, isTransient, SOURCE, toVmhubError } from './pve-errors.ts';
import { waitTask, type TaskWait } from './tasks.ts';

const inFlight = new WeakMap<PveClient, Set<number>>();

function reserved(client: PveClient): Set<number> {
  let set = inFlight.get(client);
  if (!set) inFlight.set(client, (set = new Set()));
  return set;
}

/** A free VMID not already handed to another clone of this process. */
export async function allocateVmid(client: PveClient, signal?: AbortSignal): Promise<number> {
  const taken = reserved(client);
  let id = Number(await client.get<string | number>('/cluster/nextid', {}, { signal }));
  // `verified`: the cluster said this id is free (plain nextid, or nextid?vmid=<id> answered it).
  let verified = true;
  for (let i = 0; i < 64 && (taken.has(id) || !verified); i++) {
    if (taken.has(id)) {
      id += 1;
      verified = false;
      continue;
    }
    try {
      id = Number(await client.get<string | number>('/cluster/nextid', { vmid: id }, { signal }));
      verified = true;
    } catch (err) {
      if (!(isPveApiError(err) && err.status === 400)) throw err;
      id += 1; // taken in the cluster: probe the next
    }
  }
  if (!Number.isInteger(id) || id < 100 || taken.has(id) || !verified) throw new VmhubError('LOCK_CONTENTION', `[vmhub] [${SOURCE}] could not find a free VMID near ${id}`, { source: SOURCE });
  taken.add(id);
  return id;
}

export function releaseVmid(client: PveClient, vmid: number): void {
  reserved(client).delete(vmid);
}

export interface CloneSpec {
  node: string;
  /** The VM cloned: the golden template, or (with `snapname`) the VM holding the snapshot. */
  templateVmid: number;
  /** Clone this snapshot of it (a fork): always a full clone, as PVE needs for a non-template. */
  snapname?: string;
  name: string;
  /** Carries the identity, so a clone whose answer was lost can be recognised. */
  description: string;
  identity: string;
  /** The identity tag, set on a stray before removing it. */
  tag: string;
  full: boolean;
  storage?: string;
  pool?: string;
  attempts: number;
  retryBaseMs: number;
  task: Omit<TaskWait, 'what'>;
  /**
   * Out: VMIDs whose clone request had no clear answer and showed no VM yet. A delayed request
   * may still create one there, so they stay reserved until `sweepStrays` looked again.
   */
  strays: { vmid: number; at: number }[];
}

type Probe = 'ours' | 'absent' | 'other';

/** After an ambiguous failure: is there a VM at `vmid`, and is it the clone this lease asked for? */
async function probeClone(client: PveClient, spec: CloneSpec, vmid: number): Promise<Probe> {
  const deadline = Date.now() + spec.task.timeoutMs;
  // With rights granted only through a pool, a clone still running (it joins the pool at its end)
  // and a VMID nobody took both answer 403: tell them apart with nextid, and wait (bounded) for a
  // taken one to become readable.
  const forbiddenUntil = Date.now() + Math.min(spec.task.timeoutMs, 120_000);
  for (;;) {
    let config: Record<string, unknown>;
    try {
      config = await client.get<Record<string, unknown>>(`/nodes/${spec.node}/qemu/${vmid}/config`, {}, { signal: spec.task.signal });
    } catch (err) {
      if (isGone(err)) return 'absent';
      if (isForbidden(err)) {
        const free = await vmidFree(client, vmid, spec.task.signal);
        if (free || Date.now() >= forbiddenUntil) return 'absent';
        await sleep(spec.task.pollMs, spec.task.signal);
        continue;
      }
      throw err;
    }
    // While the clone task runs the new config only holds `lock: clone`.
    if (config.lock === 'clone' && Date.now() < deadline) {
      await sleep(spec.task.pollMs, spec.task.signal);
      continue;
    }
    return typeof config.description === 'string' && config.description.includes(spec.identity) && !config.lock ? 'ours' : 'other';
  }
}

/** Clone the template; resolves with the new VMID once the clone task ended OK. */
export async function cloneTemplate(client: PveClient, spec: CloneSpec): Promise<number> {
  let last: unknown;
  for (let attempt = 0; attempt < spec.attempts; attempt++) {
    if (attempt > 0) await sleep(backoffMs(attempt - 1, spec.retryBaseMs), spec.task.signal);
    const vmid = await allocateVmid(client, spec.task.signal);
    try {
      let upid: string;
      try {
        upid = await client.post<string>(`/nodes/${spec.node}/qemu/${spec.templateVmid}/clone`, {
          newid: vmid, name: spec.name, description: spec.description, full: spec.full,
          storage: spec.full ? spec.storage : undefined, pool: spec.pool, snapname: spec.snapname,
        }, { retry: 'none', signal: spec.task.signal });
      } catch (err) {
        last = err;
        if (isPveApiError(err) && isTransient(err)) {
          const seen = await probeClone(client, spec, vmid);
          if (seen === 'ours') return vmid;
          if (seen === 'absent') spec.strays.push({ vmid, at: Date.now() });
          continue;
        }
        if (isVmidTaken(err) || isLock(err)) continue;
        throw toVmhubError(err, `cloning ${sourceOf(spec)} on node ${spec.node}`);
      }
      try {
        await waitTask(client, upid, { ...spec.task, what: `clone of ${sourceOf(spec)} to VM ${vmid}` });
        return vmid;
      } catch (err) {
        last = err;
        if (isVmidTaken(err) || isLock(err)) continue;
        if (isPveApiError(err) && isTransient(err)) {
          // Lost track of the task: look at the VM instead.
          const seen = await probeClone(client, spec, vmid);
          if (seen === 'ours') return vmid;
          if (seen === 'absent') {
            spec.strays.push({ vmid, at: Date.now() });
            continue;
          }
        }
        throw toVmhubError(err, `cloning ${sourceOf(spec)} to VM ${vmid}`);
      }
    } finally {
      if (!spec.strays.some((x) => x.vmid === vmid)) releaseVmid(client, vmid);
    }
  }
  const mapped = toVmhubError(last, `cloning ${sourceOf(spec)} on node ${spec.node}`);
  throw new VmhubError(mapped.code === 'PROVISION_FAILED' ? 'LOCK_CONTENTION' : mapped.code, `${mapped.message} (gave up after ${spec.attempts} attempts)`, { source: SOURCE, details: mapped.details });
}

function sourceOf(spec: CloneSpec): string {
  return spec.snapname ? `snapshot ${spec.snapname} of VM ${spec.templateVmid}` : `template ${spec.templateVmid}`;
}

function isVmidTaken(err: unknown): boolean {
  const text = isPveApiError(err) ? err.text : VmhubError.is(err) ? err.message : '';
  return /already exists/i.test(text);
}

/**
 * Look again at the VMIDs of ambiguous clone attempts once a late request could have landed
 * (`settleMs` after the attempt): a VM there whose description names this lease is ours — tag it
 * (so the reaper can find it if removal fails) and remove it.
 */
export async function sweepStrays(client: PveClient, spec: CloneSpec, settleMs: number, remove: (vmid: number) => Promise<void>): Promise<void> {
  for (const stray of spec.strays) {
    const wait = stray.at + settleMs - Date.now();
    if (wait > 0) await sleep(wait);
    try {
      const seen = await probeClone(client, { ...spec, task: { ...spec.task, signal: undefined } }, stray.vmid);
      if (seen === 'ours') {
        await client.put(`/nodes/${spec.node}/qemu/${stray.vmid}/config`, { tags: spec.tag });
        await remove(stray.vmid);
      }
    } finally {
      releaseVmid(client, stray.vmid);
    }
  }
}
