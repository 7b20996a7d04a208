/**
 * vm_snapshot for the calling principal: create (create.ts), restore (restore.ts), list, delete
 * (delete.ts). Snapshots live in the store (table snapshots) and at their provider, owned by the
 * principal that made them and kept past their lease until deleted or snapshots.keep_hours
 * passes (then the reaper deletes them by identity). Forks are vm_lease_create's (leases/fork.ts).
 */
import type { ToolInput, ToolOutput } from '@vmhub/core';
import { createSnapshot } from './create.ts';
import { deleteSnapshot } from './delete.ts';
import type { SnapshotDeps } from './deps.ts';
import { snapshotView } from './own.ts';
import { restoreSnapshot } from './restore.ts';

/** vm_snapshot {action: "list"} answers at most this many (newest first). */
const LIST_CAP = 100;

export class Snapshots {
  readonly #deps: SnapshotDeps;

  constructor(deps: SnapshotDeps) {
    this.#deps = deps;
  }

  /** One vm_snapshot call (the router checked which fields each action needs). */
  async run(input: ToolInput<'vm_snapshot'>, principal: string): Promise<ToolOutput<'vm_snapshot'>> {
    const deps = this.#deps;
    switch (input.action) {
      case 'create': return { snapshots: [await createSnapshot(deps, input.lease_id!, input.name, principal)] };
      case 'restore': return { snapshots: [await restoreSnapshot(deps, input.lease_id!, input.snapshot_id!, principal)] };
      case 'delete': return { snapshots: [await deleteSnapshot(deps, input.snapshot_id!, principal)] };
      case 'list': return { snapshots: await this.list(principal, input.lease_id) };
    }
  }

  /** The principal's live snapshots (of one of their leases, released ones included), newest first. */
  async list(principal: string, leaseId?: string) {
    if (leaseId !== undefined) await this.#deps.leases.get(leaseId, principal);
    const rows = await this.#deps.store.listSnapshots({ principal, ...(leaseId ? { lease_id: leaseId } : {}), state: ['ready'], unexpiredAt: Date.now() }, LIST_CAP);
    return rows.map(snapshotView);
  }

  /** Disk the live snapshots of this instance use, and the budget (vm_health, doctor). */
  async usage(): Promise<{ count: number; bytes: number; max_bytes: number }> {
    const used = await this.#deps.store.snapshotUsage();
    return { ...used, max_bytes: this.#deps.config.snapshots.max_bytes };
  }
}
