/**
 * Provisioning one lease in this process, after create inserted it: the provider's create, then
 * its readiness stages, each recorded as it happens; a claim renewed meanwhile, so that if this
 * process dies the reaper fails the lease and destroys its machine once the claim lapses. A
 * failure fails the lease (BOOT_TIMEOUT past the template's ready timeout) and destroys what was
 * made; a release that arrived meanwhile is finished by the teardown it hands off (release.ts).
 */
import { VmhubError, type Provider, type SnapshotRef, type TemplateConfig, type WorkspaceRef } from '@vmhub/core';
import { deadlineSignal } from '@vmhub/core/router';
import type { LeaseRow } from '@vmhub/store';
import { log } from '../log.ts';
import { ACTIVE, CLAIM_MS, PROVISION_CLAIM_MS, type LeaseDeps } from './deps.ts';
import { cleanupAfterRelease } from './release.ts';
import { destroyMachine } from './teardown.ts';
import { parseStages, withStage } from './view.ts';

/**
 * `fromSnapshot`: a fork — the provider starts the machine from this snapshot (CreateRequest.from_snapshot).
 * `workspace`: attached at create (CreateRequest.workspace); the lease holds it until its machine is destroyed.
 */
export async function provision(deps: LeaseDeps, lease: LeaseRow, template: TemplateConfig, fromSnapshot?: SnapshotRef, workspace?: WorkspaceRef): Promise<void> {
  const { store, actor, changes } = deps;
  const provider = deps.registry.providers.get(template.provider)!;
  const abort = new AbortController();
  deps.provisioning.set(lease.id, abort);
  // A clearable deadline: AbortSignal.timeout() would hold its timer (and the lease's signals)
  // for the whole ready timeout after the lease is ready (bench/session-leak.mjs found it).
  const timeout = deadlineSignal((template.ready_timeout_seconds ?? 300) * 1000);
  const signal = AbortSignal.any([abort.signal, timeout.signal]);
  let stages = parseStages(lease.stages);
  let pending: Promise<unknown> = Promise.resolve();
  const holdClaim = () => store.updateLease(lease.id, { claimed_by: actor, claim_expires_at: Date.now() + PROVISION_CLAIM_MS }, ACTIVE).catch(() => undefined);
  await holdClaim();
  // Renews only while the lease is provisioning or starting (holdClaim's status filter).
  const heartbeat = setInterval(() => void holdClaim(), PROVISION_CLAIM_MS / 3);
  heartbeat.unref();
  const stage = (name: string, status: 'pending' | 'running' | 'done' | 'failed', detail?: string) => {
    stages = withStage(stages, name, status, detail);
    const json = JSON.stringify(stages);
    pending = pending.then(() => store.updateLease(lease.id, { stages: json }, ACTIVE)).then(() => changes.changed(lease.id)).catch(() => undefined);
  };
  try {
    stage('create', 'running');
    await store.putMachine({ lease_id: lease.id, identity: lease.identity, provider: template.provider, external_id: null, node: null, state: 'creating', details: '{}' });
    const machine = await bounded(provider.create({ lease_id: lease.id, identity: lease.identity, template, signal, ...(fromSnapshot ? { from_snapshot: fromSnapshot } : {}), ...(workspace ? { workspace } : {}) }), signal);
    await store.putMachine({ lease_id: lease.id, identity: lease.identity, provider: template.provider, external_id: machine.external_id, node: machine.node ?? null, state: 'running', details: JSON.stringify(machine.details ?? {}) });
    stage('create', 'done');
    await pending;
    if (!(await store.transition(lease.id, ['provisioning'], 'starting', { stages: JSON.stringify(stages) }))) throw new Released();
    changes.changed(lease.id);
    await bounded(provider.ready(machine, { signal, template, stage }), signal);
    await pending;
    if (!(await store.transition(lease.id, ['starting'], 'ready', { stages: JSON.stringify(stages.map((s) => (s.status === 'running' ? { ...s, status: 'done' as const } : s))), deadline_at: null, claimed_by: null, claim_expires_at: null }))) throw new Released();
    changes.changed(lease.id);
    await store.appendEvent({ lease_id: lease.id, actor, kind: 'lease.ready' });
  } catch (err) {
    await pending;
    if (deps.closing() && abort.signal.aborted) {
      // Shutdown (SIGTERM/SIGINT): no outcome is recorded here. Our claim stops being renewed and
      // lapses; the reaper then fails the lease and destroys its machine, found by its identity.
      log('info', 'provisioning abandoned at shutdown; the reaper fails the lease and destroys its machine once its claim lapses', { lease: lease.id, claim_seconds: PROVISION_CLAIM_MS / 1000 });
      return;
    }
    if (err instanceof Released) return void deps.track(cleanupAfterRelease(deps, lease.id, provider));
    await failed(deps, lease.id, provider, stages, timeout.signal.aborted
      ? new VmhubError('BOOT_TIMEOUT', `${template.id} was not ready within ${template.ready_timeout_seconds ?? 300} s (${(err as Error).message})`)
      // Our deadline decides the code: a provider interrupted by it may report an abort or TIMEOUT.
      : VmhubError.is(err) ? err : new VmhubError('PROVISION_FAILED', (err as Error).message));
  } finally {
    clearInterval(heartbeat);
    timeout.clear();
    deps.provisioning.delete(lease.id);
  }
}

/** Record the failure (lease, stages, event), end the session, and destroy what was made. */
async function failed(deps: LeaseDeps, leaseId: string, provider: Provider, stages: ReturnType<typeof parseStages>, e: VmhubError): Promise<void> {
  const { store, actor } = deps;
  const code = e.code === 'INTERNAL' ? 'PROVISION_FAILED' : e.code;
  const marked = stages.map((s) => (s.status === 'running' || s.status === 'pending' ? { ...s, status: 'failed' as const } : s));
  const moved = await store.transition(leaseId, ACTIVE, 'failed', { error_code: code, error_message: e.message.slice(0, 2000), stages: JSON.stringify(marked), deadline_at: null, claimed_by: actor, claim_expires_at: Date.now() + CLAIM_MS });
  log('warn', 'provisioning failed', { lease: leaseId, code, message: e.message });
  await store.appendEvent({ lease_id: leaseId, actor, kind: 'lease.failed', data: { code, message: e.message.slice(0, 500) } });
  await deps.onEnd(leaseId, 'failed').catch(() => undefined);
  if (!moved) return void deps.track(cleanupAfterRelease(deps, leaseId, provider));
  await destroyMachine(store, provider, leaseId, actor).catch((d) => log('warn', 'teardown after failure failed; the reaper will retry', { lease: leaseId, error: (d as Error).message }));
  // Waiters wake once the machine is gone (a poll may still see `failed` a moment earlier).
  deps.changes.changed(leaseId);
}

/** The lease left provisioning/starting (released) while we were making it. */
class Released extends Error {}

/** Enforce the deadline even on a provider that ignores the signal it was given. */
function bounded<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
