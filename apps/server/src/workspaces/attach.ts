/**
 * What vm_lease_create {workspace} does before its lease is inserted: the template must take a
 * workspace (Provider.workspaceSupport, else CAPABILITY_UNAVAILABLE with the reason); the
 * principal's workspace of that name is found, or made under the quota (workspaces.
 * max_per_principal, max_bytes_per_principal: QUOTA_EXCEEDED naming the limit). Names are the
 * principal's own: another principal's workspace of the same name is never found or touched.
 * The attach itself (the lock) happens with the lease's insert (store.createLease {workspace}).
 * Its bytes are measured when a lease attaches it and again once that lease's machine is gone.
 */
import { randomUUID } from 'node:crypto';
import { VmhubError, workspaceIdentity, type Provider, type TemplateConfig, type WorkspaceRef } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';
import { WorkspaceHeldError, type Store, type WorkspaceRow } from '@vmhub/store';
import { log } from '../log.ts';

/** The guest path workspaces of this template go to, or the reason it takes none. */
export function workspaceSupport(provider: Provider | undefined, template: TemplateConfig): { path: string } | string {
  if (!provider) return `provider "${template.provider}" is not loaded`;
  if (!provider.workspaceSupport || typeof provider.deleteWorkspace !== 'function') return `provider "${provider.id}" has no workspaces`;
  try {
    const support = provider.workspaceSupport(template);
    return typeof support === 'string' ? support : { path: template.workspace_path ?? support.path };
  } catch (err) {
    return `provider "${provider.id}" could not say: ${(err as Error).message}`;
  }
}

/** The provider's handle on a workspace row. */
export function workspaceRef(row: WorkspaceRow): WorkspaceRef {
  return { identity: row.identity, name: row.name, principal: row.principal, path: row.path };
}

/** The principal's workspace `name` for a lease of `template`: found, or made now. */
export async function prepareWorkspace(store: Store, config: VmhubConfig, provider: Provider | undefined, template: TemplateConfig, principal: string, name: string, actor: string): Promise<WorkspaceRow> {
  const support = workspaceSupport(provider, template);
  if (typeof support === 'string') {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `vm_lease_create {workspace}: leases of template ${template.id} cannot take a workspace: ${support}`, { hint: 'Create the lease without workspace, or pick a template whose provider has workspaces (docs/agent-tools.md, Workspaces).', details: { capability: 'workspace', template: template.id } });
  }
  const existing = await store.getWorkspace(principal, name);
  if (existing) {
    if (existing.provider !== template.provider) throw new VmhubError('INVALID_REQUEST', `workspace "${name}" is a ${existing.provider} volume; template ${template.id} runs on ${template.provider}: nothing was done`, { hint: `Use a ${existing.provider} template with this workspace, or another workspace name.` });
    if (existing.holder_lease) throw held(name, existing.holder_lease);
    return existing;
  }
  const limits = config.workspaces;
  const used = await store.workspaceUsage(principal);
  if (used.count >= limits.max_per_principal) throw new VmhubError('QUOTA_EXCEEDED', `principal "${principal}" already holds ${used.count} workspaces (workspaces.max_per_principal: ${limits.max_per_principal}); no workspace was made`, { hint: 'Attach one of your existing workspaces, or ask the operator to delete one (vmhub-server workspaces rm).' });
  if (used.bytes >= limits.max_bytes_per_principal) throw new VmhubError('QUOTA_EXCEEDED', `principal "${principal}"'s workspaces hold ${used.bytes} bytes (workspaces.max_bytes_per_principal: ${limits.max_bytes_per_principal}); no workspace was made`, { hint: 'Attach one of your existing workspaces, or ask the operator to delete one (vmhub-server workspaces rm).' });
  const id = randomUUID();
  const instance = config.instance;
  const { workspace } = await store.addWorkspace({ id, principal, name, provider: template.provider, identity: workspaceIdentity(instance, id), template: template.id, path: support.path, created_at: Date.now() }, actor);
  return workspace;
}

/** LOCK_CONTENTION naming the lease that holds the workspace. */
export function held(name: string, holder: string | undefined): VmhubError {
  return new VmhubError('LOCK_CONTENTION', holder
    ? `workspace "${name}" is attached to lease ${holder}: a workspace is attached to one live lease at a time`
    : `workspace "${name}" is being deleted by the operator`, { hint: holder ? `Release lease ${holder} (vm_lease_release) or wait for it to end, then retry.` : 'Use another workspace name.', details: { workspace: name, ...(holder ? { holder_lease: holder } : {}) } });
}

/** WorkspaceHeldError from the store as LOCK_CONTENTION; anything else unchanged. */
export function heldError(err: unknown): unknown {
  return err instanceof WorkspaceHeldError ? held(err.workspace, err.holder) : err;
}

/** Record what the workspace holds now (best effort: a failure only leaves the last figure). */
export async function measureWorkspace(store: Store, provider: Provider | undefined, row: WorkspaceRow): Promise<number | undefined> {
  try {
    const bytes = await provider?.workspaceBytes?.(workspaceRef(row));
    if (bytes !== undefined) await store.setWorkspaceBytes(row.id, bytes);
    return bytes;
  } catch (err) {
    log('debug', 'workspace bytes not measured', { workspace: row.id, error: (err as Error).message });
    return undefined;
  }
}

/**
 * After a lease's machine is destroyed (release, expiry): record what the workspace it held holds
 * now, so the bytes quota of the next new workspace counts what this lease wrote. Best effort.
 */
export async function measureAfterLease(store: Store, providerOf: (id: string) => Provider | undefined, leaseId: string): Promise<void> {
  const row = await store.workspaceOfLease(leaseId).catch(() => undefined);
  if (row && row.holder_lease === undefined) await measureWorkspace(store, providerOf(row.provider), row);
}
