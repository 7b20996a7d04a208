/**
 * Deleting a workspace: a person's act (`vmhub-server workspaces rm`, the dashboard), never an
 * agent's — no tool reaches this. Refused with LOCK_CONTENTION while a lease holds it (its
 * machine still mounts it); otherwise the row goes `deleting`, the provider deletes the volume
 * after reading its identity back, and the row is removed with a `workspace.deleted` event. A
 * provider failure puts it back to ready (nothing half done is left claimed).
 */
import { VmhubError, type DestroyOutcome } from '@vmhub/core';
import type { Store, WorkspaceRow } from '@vmhub/store';
import type { Registry } from '../registry.ts';
import { heldError, measureWorkspace, workspaceRef } from './attach.ts';

/** A workspace found by its id, or by `name` of `principal`; NOT_FOUND otherwise. */
export async function findWorkspace(store: Store, ref: string, principal: string): Promise<WorkspaceRow> {
  const row = (await store.getWorkspace(principal, ref)) ?? (/^[0-9a-f-]{36}$/.test(ref) ? await store.getWorkspaceById(ref) : undefined);
  if (!row) throw new VmhubError('NOT_FOUND', `no workspace "${ref}" of principal "${principal}"`, { hint: 'vmhub-server workspaces list shows every principal\'s workspaces (give --principal, or the id).' });
  return row;
}

export async function removeWorkspace(store: Store, registry: Registry, row: WorkspaceRow, actor: string): Promise<DestroyOutcome> {
  const provider = registry.providers.get(row.provider);
  if (!provider?.deleteWorkspace) throw new VmhubError('CAPABILITY_UNAVAILABLE', `workspace "${row.name}" lives on provider "${row.provider}", which is not loaded here or cannot delete workspaces: nothing was deleted`, { hint: `Run this where provider ${row.provider} is configured.` });
  const claimed = await store.beginWorkspaceDelete(row.id).catch((err: unknown) => { throw heldError(err); });
  if (!claimed) throw new VmhubError('NOT_FOUND', `workspace "${row.name}" is gone already`);
  let outcome: DestroyOutcome;
  try {
    outcome = await provider.deleteWorkspace(workspaceRef(claimed));
  } catch (err) {
    await store.workspaceDeleteFailed(row.id);
    throw err;
  }
  await store.workspaceDeleted(row.id, actor, outcome);
  return outcome;
}

/** The workspace with its bytes measured now where its provider can (best effort). */
export async function measuredWorkspace(store: Store, registry: Registry, row: WorkspaceRow): Promise<WorkspaceRow> {
  const bytes = await measureWorkspace(store, registry.providers.get(row.provider), row);
  return bytes === undefined ? row : { ...row, bytes };
}

/** Every workspace (of `principal`, or everyone's) with its bytes measured now (best effort). */
export async function measuredWorkspaces(store: Store, registry: Registry, principal?: string): Promise<WorkspaceRow[]> {
  return Promise.all((await store.listWorkspaces(principal)).map((r) => measuredWorkspace(store, registry, r)));
}
