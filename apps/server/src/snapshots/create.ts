/**
 * vm_snapshot {action: "create"}: a snapshot of the caller's ready lease, under the quotas
 * (snapshots.max_per_principal, then the disk budget snapshots.max_bytes), carrying the identity
 * `vmhub-<instance>-snap-<id>`, kept snapshots.keep_hours. Both quotas are checked before the
 * provider is asked and again once the row is in the store, where concurrent creates (in this
 * process or another sharing the store) see each other: a snapshot that finds the principal's
 * count or the instance's disk past its limit is deleted again and the call answers
 * QUOTA_EXCEEDED — or LOCK_CONTENTION (retryable) when, after that, the principal is back under
 * the count, i.e. another create raced it and both stood down. Over a quota, nothing stays.
 */
import { randomUUID } from 'node:crypto';
import { snapshotIdentity, VmhubError, type SnapshotInfo } from '@vmhub/core';
import { deadlineSignal } from '@vmhub/core/router';
import { machineRef, type SnapshotRow } from '@vmhub/store';
import { log } from '../log.ts';
import { notReadyError } from '../sessions/lease-sessions.ts';
import { deleteClaimed } from './delete.ts';
import { SNAPSHOT_CALL_MS, type SnapshotDeps } from './deps.ts';
import { snapshotView } from './own.ts';
import { assertSnapshots } from './support.ts';

const GIB = 1024 ** 3;
const gib = (bytes: number) => `${(bytes / GIB).toFixed(2)} GiB`;

export async function createSnapshot(deps: SnapshotDeps, leaseId: string, name: string | undefined, principal: string): Promise<SnapshotInfo> {
  const { store, registry, config } = deps;
  const lease = await deps.leases.get(leaseId, principal);
  if (lease.status !== 'ready') throw notReadyError(lease);
  const template = deps.leases.template(lease.template);
  const provider = registry.providers.get(template.provider);
  const support = assertSnapshots(provider, template, 'vm_snapshot create');
  const limits = config.snapshots;
  const mine = await store.snapshotUsage(principal);
  if (mine.count >= limits.max_per_principal) throw countFull(principal, mine.count, limits.max_per_principal);
  const used = await store.snapshotUsage();
  if (used.bytes >= limits.max_bytes) throw diskFull(used.bytes, 0, limits.max_bytes);
  const machineRow = await store.getMachine(lease.id);
  const machine = machineRow ? machineRef(machineRow) : undefined;
  if (!machine) throw new VmhubError('INTERNAL', `lease ${lease.id} is ready but has no machine record`);

  const id = randomUUID();
  const identity = snapshotIdentity(config.instance, id);
  const deadline = deadlineSignal(SNAPSHOT_CALL_MS, `vm_snapshot create: the provider did not finish within ${SNAPSHOT_CALL_MS / 1000} s`);
  let made;
  try {
    made = await provider!.snapshot!(machine, { identity, template, signal: deadline.signal });
  } finally {
    deadline.clear();
  }
  if (made.identity !== identity) throw new VmhubError('INTERNAL', `provider "${template.provider}" answered a snapshot carrying ${made.identity}, not ${identity}`);
  const now = Date.now();
  const row = await store.addSnapshot({
    id, principal, lease_id: lease.id, template: template.id, provider: template.provider, identity,
    external_id: made.external_id, ...(made.node ? { node: made.node } : {}), details: made.details ?? {},
    // The provider's answer, within what it declared: a disk-only provider never claims memory.
    memory: support.memory && made.memory, size_bytes: Math.max(0, Math.round(made.size_bytes)),
    ...(name ? { name } : {}), created_at: now, expires_at: now + limits.keep_hours * 3_600_000,
  }, deps.actor);
  // The count again, with this snapshot and any made at the same time: past it, this one goes.
  const theirs = await store.snapshotUsage(principal);
  if (theirs.count > limits.max_per_principal) {
    await undo(deps, row);
    const left = await store.snapshotUsage(principal);
    if (left.count < limits.max_per_principal) {
      throw new VmhubError('LOCK_CONTENTION', `another snapshot for principal "${principal}" was being made at the same moment and the two would have passed snapshots.max_per_principal (${limits.max_per_principal}); this one was not kept`, { hint: 'Retry: there is room for one now.' });
    }
    throw countFull(principal, left.count, limits.max_per_principal);
  }
  // The budget is checked again with this snapshot's size: past it, it is deleted again.
  const after = await store.snapshotUsage();
  if (after.bytes > limits.max_bytes) {
    await undo(deps, row);
    throw diskFull(after.bytes - row.size_bytes, row.size_bytes, limits.max_bytes);
  }
  return snapshotView(row);
}

function countFull(principal: string, count: number, max: number): VmhubError {
  return new VmhubError('QUOTA_EXCEEDED', `principal "${principal}" already holds ${count} snapshots (snapshots.max_per_principal = ${max})`, { hint: 'Delete snapshots you no longer need (vm_snapshot {action: "delete"}), or wait until they expire.' });
}

function diskFull(used: number, adding: number, max: number): VmhubError {
  return new VmhubError('QUOTA_EXCEEDED', `snapshots use ${gib(used)}${adding ? `; this one (${gib(adding)}) would pass` : ', at'} the disk budget snapshots.max_bytes (${gib(max)})`, { hint: 'Delete snapshots you no longer need (vm_snapshot {action: "delete"}), or ask the operator to raise snapshots.max_bytes.' });
}

/** Delete a snapshot just made (over the budget); what fails, the reaper deletes at expiry. */
async function undo(deps: SnapshotDeps, row: SnapshotRow): Promise<void> {
  await deleteClaimed(deps, row, 'over the disk budget (snapshots.max_bytes)').catch((err: Error) => log('warn', 'a snapshot over the disk budget could not be deleted; the reaper retries', { snapshot: row.id, error: err.message }));
}
