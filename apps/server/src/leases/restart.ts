/**
 * vm_lease_restart: the caller's ready lease's machine rebooted in place. The lease keeps its id,
 * expiry, identity and machine (a container's filesystem, a VM's overlay); every guest process is
 * gone afterwards. It runs with the lease's gate closed (LeaseSessions.exclusive): the agent calls
 * in flight are waited for (RESTART_WAIT_MS, then LOCK_CONTENTION and nothing was done), and calls
 * that arrive meanwhile wait at the gate until the machine is ready again, so none reaches a
 * half-rebooted machine (calls on other server processes sharing the store are not held: they see
 * `starting` and answer LEASE_NOT_READY).
 *
 * In the store the lease goes ready → starting with a `reboot` stage, the provider's readiness
 * stages after it, and back to ready — vm_lease_status shows and waits on it exactly as on a
 * lease being made. The lease's session ends before the reboot (its channels and consoles would
 * be stale), so the next call opens a fresh one. While it runs the restart holds a claim and a
 * deadline like provisioning (provision.ts): if this process dies, the claim lapses and the reaper
 * fails the lease and destroys its machine; a machine that does not come back within the
 * template's ready timeout fails the lease (BOOT_TIMEOUT) and is destroyed. A release or an expiry
 * meanwhile aborts it. While a person holds the lease (the live view's take-over) it answers
 * HUMAN_CONTROL and does nothing: a reboot would pull the screen from under them.
 */
import { VmhubError, type TemplateConfig } from '@vmhub/core';
import { assertNoHumanHold, deadlineSignal } from '@vmhub/core/router';
import { machineRef, type LeaseRow } from '@vmhub/store';
import { heldControl } from '../live/control.ts';
import { log } from '../log.ts';
import { notReadyError } from '../sessions/lease-sessions.ts';
import { PROVISION_CLAIM_MS, type LeaseDeps } from './deps.ts';
import { assertMachine, restartSupport } from './machine-support.ts';
import { allDone, bounded, failed, holdClaim, stageWriter } from './provision.ts';

/** How long a restart waits for the lease's calls in flight before LOCK_CONTENTION (as a restore does). */
export const RESTART_WAIT_MS = 8_000;

/** What a restart needs of the lease sessions (sessions/lease-sessions.ts). */
export interface RestartGate {
  exclusive<T>(leaseId: string, what: string, waitMs: number, fn: () => Promise<T>): Promise<T>;
  end(leaseId: string, reason: string): Promise<void>;
}

/**
 * Start restarting `row` (already the caller's). Resolves once the lease is `starting` and the
 * reboot under way; rejects, with nothing done, when the template's machines cannot restart, the
 * lease is not ready, or its calls in flight do not finish in time. The reboot, the readiness
 * wait and the move back to ready go on in the background (LeaseManager.settled waits for them).
 */
export async function startRestart(deps: LeaseDeps, gate: RestartGate, row: LeaseRow, template: TemplateConfig, hard: boolean): Promise<void> {
  const provider = deps.registry.providers.get(template.provider);
  if (row.status !== 'ready') throw notReadyError(row);
  assertMachine(provider, template, 'restart', 'vm_lease_restart');
  const graceful = !hard && (restartSupport(provider, template) as { graceful: boolean }).graceful;
  let begun!: () => void;
  const started = new Promise<void>((resolve) => { begun = resolve; });
  const run = gate.exclusive(row.id, 'vm_lease_restart', RESTART_WAIT_MS, async () => {
    // Read again inside the gate: the lease may have ended, or another restart run, meanwhile.
    const now = await deps.store.getLease(row.id);
    if (now?.status !== 'ready') throw notReadyError(now ?? row);
    assertNoHumanHold('vm_lease_restart', row.id, await heldControl(deps.store, row.id));
    const machine = await deps.store.getMachine(row.id);
    const ref = machine ? machineRef(machine) : undefined;
    if (!ref) throw new VmhubError('INTERNAL', `lease ${row.id} is ready but has no machine record`);
    const stages = [{ name: 'reboot', status: 'running' as const, detail: graceful ? 'the guest is asked to reboot' : 'reset' }];
    const moved = await deps.store.transition(row.id, ['ready'], 'starting', { stages: JSON.stringify(stages), deadline_at: Date.now() + deps.config.leases.provision_timeout_seconds * 1000, claimed_by: deps.actor, claim_expires_at: Date.now() + PROVISION_CLAIM_MS });
    if (!moved) throw notReadyError((await deps.store.getLease(row.id)) ?? row);
    deps.changes.changed(row.id);
    await deps.store.appendEvent({ lease_id: row.id, actor: deps.actor, kind: 'lease.restarting', data: { hard } });
    // Its channels and consoles would be stale after the reboot: the next call opens a new session.
    await gate.end(row.id, 'restarting');
    begun();
    await reboot(deps, row.id, ref, template, hard, stages);
  });
  deps.track(run.then(() => undefined, (err: unknown) => {
    log('info', 'restart refused; nothing was done', { lease: row.id, error: (err as Error).message });
  }));
  await Promise.race([started, run]);
}

/** The provider's restart, then its readiness wait, then ready again; a failure fails the lease (provision.ts `failed`). */
async function reboot(deps: LeaseDeps, leaseId: string, ref: NonNullable<ReturnType<typeof machineRef>>, template: TemplateConfig, hard: boolean, initial: { name: string; status: 'running'; detail: string }[]): Promise<void> {
  const { store } = deps;
  const provider = deps.registry.providers.get(template.provider)!;
  const abort = new AbortController();
  deps.provisioning.set(leaseId, abort);
  const timeout = deadlineSignal((template.ready_timeout_seconds ?? 300) * 1000);
  const signal = AbortSignal.any([abort.signal, timeout.signal]);
  const claim = await holdClaim(deps, leaseId);
  const writer = stageWriter(deps, leaseId, initial);
  const { stage } = writer;
  const began = Date.now();
  try {
    const moved = await bounded(provider.restart!(ref, { template, hard, signal, stage }), signal);
    let machine = ref;
    if (moved && (moved.external_id !== ref.external_id || (moved.node ?? undefined) !== ref.node)) {
      machine = moved;
      await store.putMachine({ lease_id: leaseId, identity: ref.identity, provider: template.provider, external_id: moved.external_id, node: moved.node ?? null, state: 'running', details: JSON.stringify(moved.details ?? {}) });
    }
    if (writer.stages.find((s) => s.name === 'reboot')?.status === 'running') stage('reboot', 'done');
    await bounded(provider.ready(machine, { signal, template, stage }), signal);
    await writer.written();
    const ready = await store.transition(leaseId, ['starting'], 'ready', { stages: JSON.stringify(allDone(writer.stages)), deadline_at: null, claimed_by: null, claim_expires_at: null });
    // Released or expired meanwhile: whoever ended it tears the machine down.
    if (!ready) return;
    deps.changes.changed(leaseId);
    await store.appendEvent({ lease_id: leaseId, actor: deps.actor, kind: 'lease.restarted', data: { outcome: 'ready', hard, ms: Date.now() - began } });
  } catch (err) {
    await writer.written();
    if (deps.closing() && abort.signal.aborted) {
      log('info', 'restart abandoned at shutdown; the reaper fails the lease and destroys its machine once its claim lapses', { lease: leaseId });
      return;
    }
    // Released or expired meanwhile (their abort is ours): nothing more to record here.
    if ((await store.getLease(leaseId))?.status !== 'starting') return;
    const e = timeout.signal.aborted
      ? new VmhubError('BOOT_TIMEOUT', `${template.id} was not ready within ${template.ready_timeout_seconds ?? 300} s of its restart (${(err as Error).message})`)
      : VmhubError.is(err) ? err : new VmhubError('PROVISION_FAILED', `the restart failed: ${(err as Error).message}`);
    await store.appendEvent({ lease_id: leaseId, actor: deps.actor, kind: 'lease.restarted', data: { outcome: 'failed', hard, code: e.code, ms: Date.now() - began } }).catch(() => undefined);
    await failed(deps, leaseId, provider, writer.stages, e);
  } finally {
    claim.stop();
    timeout.clear();
    if (deps.provisioning.get(leaseId) === abort) deps.provisioning.delete(leaseId);
  }
}
