/**
 * vm_snapshot {action: "delete"}: the caller's snapshot, deleted through its provider — which
 * reads the identity back first and leaves a snapshot carrying another one alone — under the
 * store's claim, so a server and the reaper never delete one twice. A failed delete is counted
 * and its claim lapses at once: the next call, or the reaper, retries.
 */
import { VmhubError, type SnapshotInfo } from '@vmhub/core';
import { snapshotRef, type SnapshotOutcome, type SnapshotRow } from '@vmhub/store';
import { log } from '../log.ts';
import { DELETE_CLAIM_MS, type SnapshotDeps } from './deps.ts';
import { ownSnapshot, snapshotView } from './own.ts';

export async function deleteSnapshot(deps: SnapshotDeps, snapshotId: string, principal: string): Promise<SnapshotInfo> {
  const row = await ownSnapshot(deps.store, snapshotId, principal);
  await deleteClaimed(deps, row, 'deleted by its principal');
  return snapshotView(row);
}

/** Claim `row` and delete it through its provider; throws what failed (the claim then lapses). */
export async function deleteClaimed(deps: SnapshotDeps, row: SnapshotRow, reason: string): Promise<SnapshotOutcome> {
  const { store, actor } = deps;
  const claimed = await store.claimSnapshot(row.id, actor, Date.now() + DELETE_CLAIM_MS);
  if (!claimed) throw new VmhubError('LOCK_CONTENTION', `snapshot ${row.id} is being deleted by another vmhub process`, { hint: 'It is gone from vm_snapshot {action: "list"} once that ends; nothing to do.' });
  const provider = deps.registry.providers.get(row.provider);
  try {
    if (!provider?.deleteSnapshot) throw new VmhubError('CAPABILITY_UNAVAILABLE', `provider "${row.provider}" of snapshot ${row.id} is not loaded or cannot delete snapshots`);
    const outcome = await provider.deleteSnapshot(snapshotRef(row));
    if (outcome === 'identity_mismatch') log('warn', 'the snapshot found carries another identity: left alone', { snapshot: row.id, identity: row.identity });
    await store.snapshotDeleted(row.id, actor, outcome, reason);
    return outcome;
  } catch (err) {
    await store.snapshotDeleteFailed(row.id, actor, (err as Error).message).catch(() => undefined);
    throw err;
  }
}
