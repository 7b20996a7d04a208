/**
 * A snapshot as its principal may use it: theirs, not deleted, not expired. Anything else —
 * another principal's, a deleted or expired one, an id that never existed — is the same NOT_FOUND,
 * so an answer never tells one principal that another's snapshot exists.
 */
import { VmhubError, type SnapshotInfo } from '@vmhub/core';
import type { SnapshotRow, Store } from '@vmhub/store';

export async function ownSnapshot(store: Store, id: string, principal: string): Promise<SnapshotRow> {
  const row = await store.getSnapshot(id);
  if (!row || row.principal !== principal || row.state !== 'ready' || row.expires_at <= Date.now()) {
    throw new VmhubError('NOT_FOUND', `no snapshot "${id}"`, { hint: 'vm_snapshot {action: "list"} lists your snapshots.' });
  }
  return row;
}

/** vm_snapshot's view of a row. */
export function snapshotView(row: SnapshotRow): SnapshotInfo {
  return {
    snapshot_id: row.id, ...(row.name ? { name: row.name } : {}), lease_id: row.lease_id, template: row.template,
    memory: row.memory, size_bytes: row.size_bytes, created_at: new Date(row.created_at).toISOString(), expires_at: new Date(row.expires_at).toISOString(),
  };
}
