/**
 * vm_snapshot {action: "restore"}: the caller's ready lease goes back to the caller's snapshot of
 * the same template. The lease keeps its id, expiry and session; the session's screen mapping and
 * connections are reset and its adapter session hears of it before the next call
 * (LeaseSession.restored). Every check runs before the provider is asked: a refused restore
 * changes nothing. The provider's part runs with the lease's gate closed (LeaseSessions.exclusive):
 * the lease's agent calls in flight are waited for (RESTORE_WAIT_MS, then LOCK_CONTENTION) and new
 * ones wait until the restore is done, so no call runs on a machine being replaced. A provider
 * that answers a new machine handle gets it recorded, and the lease's session ends so the next
 * call opens one on the new handle. While a person holds the lease (the live view's take-over)
 * it answers HUMAN_CONTROL and does nothing.
 */
import { VmhubError, type SnapshotInfo } from '@vmhub/core';
import { assertNoHumanHold, deadlineSignal } from '@vmhub/core/router';
import { machineRef, snapshotRef } from '@vmhub/store';
import { heldControl } from '../live/control.ts';
import { notReadyError } from '../sessions/lease-sessions.ts';
import { RESTORE_WAIT_MS, SNAPSHOT_CALL_MS, type SnapshotDeps } from './deps.ts';
import { ownSnapshot, snapshotView } from './own.ts';
import { assertSnapshots } from './support.ts';

export async function restoreSnapshot(deps: SnapshotDeps, leaseId: string, snapshotId: string, principal: string): Promise<SnapshotInfo> {
  const { store } = deps;
  const snapshot = await ownSnapshot(store, snapshotId, principal);
  const lease = await deps.leases.get(leaseId, principal);
  if (lease.status !== 'ready') throw notReadyError(lease);
  if (snapshot.template !== lease.template) {
    throw new VmhubError('INVALID_REQUEST', `snapshot ${snapshot.id} is of template ${snapshot.template}; lease ${lease.id} is of template ${lease.template}: a restore needs the same template; nothing was done`, { hint: 'Fork the snapshot into a new lease instead: vm_lease_create {snapshot_id}.' });
  }
  const template = deps.leases.template(lease.template);
  const provider = deps.registry.providers.get(template.provider);
  assertSnapshots(provider, template, 'vm_snapshot restore');
  await deps.sessions.exclusive(lease.id, 'vm_snapshot restore', RESTORE_WAIT_MS, async () => {
    // Read again inside the gate: the lease may have ended, or another restore moved its machine.
    const now = await deps.leases.get(lease.id, principal);
    if (now.status !== 'ready') throw notReadyError(now);
    assertNoHumanHold('vm_snapshot restore', lease.id, await heldControl(store, lease.id));
    const row = await store.getMachine(lease.id);
    if (!row) throw new VmhubError('INTERNAL', `lease ${lease.id} is ready but has no machine record`);
    const deadline = deadlineSignal(SNAPSHOT_CALL_MS, `vm_snapshot restore: the provider did not finish within ${SNAPSHOT_CALL_MS / 1000} s`);
    let moved;
    try {
      moved = await provider!.restore!(machineRef(row)!, snapshotRef(snapshot), { template, signal: deadline.signal });
    } finally {
      deadline.clear();
    }
    if (moved && (moved.external_id !== row.external_id || (moved.node ?? null) !== row.node)) {
      await store.putMachine({ lease_id: lease.id, identity: row.identity, provider: row.provider, external_id: moved.external_id, node: moved.node ?? null, state: 'running', details: JSON.stringify(moved.details ?? {}) });
      await deps.sessions.end(lease.id, 'restored onto a new machine handle');
    } else {
      await deps.sessions.restored(lease.id);
    }
  });
  await store.appendEvent({ lease_id: lease.id, actor: deps.actor, kind: 'snapshot.restored', data: { snapshot: snapshot.id } });
  return snapshotView(snapshot);
}
