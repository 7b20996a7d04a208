/**
 * Provisioning one lease in this process, after create inserted it: the provider's create, then
 * its readiness stages, each recorded as it happens; a claim renewed meanwhile, so that if this
 * process dies the reaper fails the lease and destroys its machine once the claim lapses. A
 * failure fails the lease (BOOT_TIMEOUT past the template's ready timeout) and destroys what was
 * made; a release that arrived meanwhile is finished by the teardown it hands off (release.ts).
 */
import { VmhubError, type Provider, type SnapshotRef, type Stage, type TemplateConfig, type WorkspaceRef } from '@vmhub/core';
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
  const claim = await holdClaim(deps, lease.id);
  const writer = stageWriter(deps, lease.id, parseStages(lease.stages));
  const { stage } = writer;
  try {
    stage('create', 'running');
    await store.putMachine({ lease_id: lease.id, identity: lease.identity, provider: template.provider, external_id: null, node: null, state: 'creating', details: '{}' });
    const machine = await bounded(provider.create({ lease_id: lease.id, identity: lease.identity, template, signal, ...(fromSnapshot ? { from_snapshot: fromSnapshot } : {}), ...(workspace ? { workspace } : {}) }), signal);
    await store.putMachine({ lease_id: lease.id, identity: lease.identity, provider: template.provider, external_id: machine.external_id, node: machine.node ?? null, state: 'running', details: JSON.stringify(machine.details ?? {}) });
    stage('create', 'done');
    await writer.written();
    if (!(await store.transition(lease.id, ['provisioning'], 'starting', { stages: JSON.stringify(writer.stages) }))) throw new Released();
    changes.changed(lease.id);
    await bounded(provider.ready(machine, { signal, template, stage }), signal);
    await writer.written();
    if (!(await store.transition(lease.id, ['starting'], 'ready', { stages: JSON.stringify(allDone(writer.stages)), deadline_at: null, claimed_by: null, claim_expires_at: null }))) throw new Released();
    changes.changed(lease.id);
    await store.appendEvent({ lease_id: lease.id, actor, kind: 'lease.ready' });
  } catch (err) {
    await writer.written();
    if (deps.closing() && abort.signal.aborted) {
      // Shutdown (SIGTERM/SIGINT): no outcome is recorded here. Our claim stops being renewed and
      // lapses; the reaper then fails the lease and destroys its machine, found by its identity.
      log('info', 'provisioning abandoned at shutdown; the reaper fails the lease and destroys its machine once its claim lapses', { lease: lease.id, claim_seconds: PROVISION_CLAIM_MS / 1000 });
      return;
    }
    if (err instanceof Released) return void deps.track(cleanupAfterRelease(deps, lease.id, provider));
    await failed(deps, lease.id, provider, writer.stages, timeout.signal.aborted
      ? new VmhubError('BOOT_TIMEOUT', `${template.id} was not ready within ${template.ready_timeout_seconds ?? 300} s (${(err as Error).message})`)
      // Our deadline decides the code: a provider interrupted by it may report an abort or TIMEOUT.
      : VmhubError.is(err) ? err : new VmhubError('PROVISION_FAILED', (err as Error).message));
  } finally {
    claim.stop();
    timeout.clear();
    deps.provisioning.delete(lease.id);
  }
}

/**
 * Hold this process's claim on a lease being made (provisioning, or starting: a restart too),
 * renewed every third of PROVISION_CLAIM_MS while it stays in one of those states: if the
 * process dies, the claim lapses and the reaper fails the lease and destroys its machine.
 */
export async function holdClaim(deps: LeaseDeps, leaseId: string): Promise<{ stop(): void }> {
  const renew = () => deps.store.updateLease(leaseId, { claimed_by: deps.actor, claim_expires_at: Date.now() + PROVISION_CLAIM_MS }, ACTIVE).catch(() => undefined);
  await renew();
  const heartbeat = setInterval(() => void renew(), PROVISION_CLAIM_MS / 3);
  heartbeat.unref();
  return { stop: () => clearInterval(heartbeat) };
}

/**
 * Readiness stages of a lease being made, each change written in order (while it is
 * provisioning or starting) and announced to waits (changes.ts); `written()` resolves once the
 * writes so far are done.
 */
export function stageWriter(deps: LeaseDeps, leaseId: string, initial: Stage[]) {
  let stages = initial;
  let pending: Promise<unknown> = Promise.resolve();
  return {
    get stages() { return stages; },
    stage(name: string, status: Stage['status'], detail?: string): void {
      stages = withStage(stages, name, status, detail);
      const json = JSON.stringify(stages);
      pending = pending.then(() => deps.store.updateLease(leaseId, { stages: json }, ACTIVE)).then(() => deps.changes.changed(leaseId)).catch(() => undefined);
    },
    written: (): Promise<unknown> => pending,
  };
}

/** The stages as a ready lease shows them: one still running is done. */
export function allDone(stages: Stage[]): Stage[] {
  return stages.map((s) => (s.status === 'running' ? { ...s, status: 'done' as const } : s));
}

/** Record the failure (lease, stages, event), end the session, and destroy what was made. */
export async function failed(deps: LeaseDeps, leaseId: string, provider: Provider, stages: ReturnType<typeof parseStages>, e: VmhubError): Promise<void> {
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
export function bounded<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
