/**
 * restart(): the guest rebooted inside the same qemu process — same pid, overlay, forwards and
 * sockets; every guest process is gone, the disk (the qcow2 overlay) stays.
 *
 * Every lease's qemu runs with `-no-reboot` (a guest that panics or resets itself stops instead
 * of looping), under which a reset — the guest's own or QMP `system_reset` — would end qemu. For
 * the restart the provider's monitor switches that off (`set-action {reboot: "reset"}`, QEMU ≥
 * 6.0), and ready() switches it back on once the guest is up again (noRebootAgain): the firmware
 * resets the machine once more on its way up after a warm reset (SeaBIOS), so it cannot go back
 * on at the first RESET event. Graceful (not `hard`, and the template has a guest
 * agent): the agent is asked for `guest-shutdown {mode: "reboot"}` (it runs the guest's
 * `/sbin/shutdown -r +0`, and answers nothing when that works) and the monitor's RESET event
 * awaited for REBOOT_GRACE_MS; an agent that refuses (no /sbin/shutdown), is silent, or a guest
 * that has not reset by then is reset with `system_reset`. Hard, or no agent: `system_reset` at
 * once. The `reboot` stage's detail says which happened.
 *
 * After the reset the record names `rebooted` with serial.log's length at that moment: ready()
 * then waits for the serial marker printed after it, even on a machine that had resumed from a
 * saved state or a snapshot (whose first ready() skipped it). Runs one at a time per machine with
 * snapshots and restores (oneAtATime).
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { VmhubError, type MachineRef, type RestartRequest, type TemplateConfig } from '@vmhub/core';
import { templateOptions } from './options.ts';
import { QmpClient, QmpError } from './qmp-client.ts';
import { requireLive, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { oneAtATime } from './qemu-snapshot.ts';
import { FILES, writeRecord } from './state-dir.ts';

/** How long a guest asked to reboot may take before it is reset. */
export const REBOOT_GRACE_MS = 30_000;
/** How long a `system_reset` may take to show as a RESET event. */
const RESET_EVENT_MS = 10_000;

export function qemuRestartSupport(template: TemplateConfig): { graceful: boolean } {
  return { graceful: templateOptions(template.provider_options).guest_agent === true };
}

export async function restart(rt: QemuRuntime, machine: MachineRef, request: RestartRequest): Promise<void> {
  const { template, hard, signal, stage } = request;
  return oneAtATime(rt, machine.identity, async () => {
    const { dir, record } = await requireLive(rt, machine, 'restart');
    const graceful = !hard && qemuRestartSupport(template).graceful;
    const qmp = await QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs: rt.qmpTimeoutMs, label: machine.identity });
    let resets = 0;
    /** Why the guest agent did not take the reboot, once it said so. */
    let refused: string | undefined;
    let wake: (() => void) | undefined;
    qmp.onEvent((e) => { if (e.event === 'RESET') { resets++; wake?.(); } });
    /** Resolves true once a RESET event came (since the restart began); false once the agent refused, or after `ms`. */
    const resetWithin = (ms: number) => new Promise<boolean>((resolve) => {
      if (resets > 0 || refused !== undefined) return resolve(resets > 0);
      const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); wake = undefined; resolve(resets > 0); };
      const timer = setTimeout(done, ms);
      wake = () => { if (resets > 0 || refused !== undefined) done(); };
      signal.addEventListener('abort', done, { once: true });
    });
    const began = Date.now();
    try {
      await qmp.execute('set-action', { reboot: 'reset' }, rt.qmpTimeoutMs).catch((err: unknown) => {
        throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${machine.identity}: this qemu cannot switch -no-reboot off (QMP set-action: ${(err as Error).message}); QEMU 6.0 or later restarts machines`, { source: SOURCE });
      });
      let how = 'system_reset';
      if (graceful) {
        const agent = await QmpClient.connect(join(dir, FILES.qga), { protocol: 'qga', timeoutMs: 3_000, label: machine.identity }).catch((err: Error) => `no answer: ${err.message}`);
        if (typeof agent === 'string') refused = agent;
        try {
          // Not awaited: a guest-shutdown that works answers nothing; the RESET event is the answer.
          if (typeof agent !== 'string') {
            agent.execute('guest-shutdown', { mode: 'reboot' }, REBOOT_GRACE_MS).catch((err: unknown) => {
              if (err instanceof QmpError) { refused = `it refused: ${err.message}`; wake?.(); }
            });
          }
          if (await resetWithin(REBOOT_GRACE_MS)) how = `the guest rebooted (guest agent guest-shutdown {mode: "reboot"}) in ${Date.now() - began} ms`;
          else how = `${refused === undefined ? `the guest had not reset ${REBOOT_GRACE_MS / 1000} s after guest-shutdown {mode: "reboot"}` : `the guest agent did not reboot it (${refused})`}: system_reset`;
        } finally {
          // The agent's socket serves one client: ready()'s guest-ping needs it next.
          if (typeof agent !== 'string') agent.close();
        }
      }
      signal.throwIfAborted();
      if (resets === 0) {
        await qmp.execute('system_reset', undefined, rt.qmpTimeoutMs);
        if (!(await resetWithin(RESET_EVENT_MS))) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] ${machine.identity}: system_reset sent, but qemu reported no reset within ${RESET_EVENT_MS / 1000} s`, { source: SOURCE });
      }
      // What serial.log holds now was printed before the reboot: ready() looks past it.
      const serialOffset = await stat(join(dir, FILES.serial)).then((s) => s.size, () => 0);
      await writeRecord(dir, { ...record, rebooted: { at: new Date().toISOString(), serial_offset: serialOffset } });
      stage('reboot', 'done', hard ? 'system_reset (hard)' : how);
    } catch (err) {
      // Not reset: -no-reboot stays as it was.
      if (resets === 0) await setNoReboot(rt, qmp, machine.identity);
      throw err;
    } finally {
      qmp.close();
    }
  });
}

/**
 * -no-reboot again (`set-action {reboot: "shutdown"}`) once a rebooted guest is up (ready() calls
 * it): from then on a guest that resets itself stops, as before its restart. Never throws.
 */
export async function noRebootAgain(rt: QemuRuntime, dir: string, identity: string): Promise<void> {
  const qmp = await QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs: rt.qmpTimeoutMs, label: identity }).catch(() => undefined);
  if (!qmp) return void rt.context.log('warn', 'could not put -no-reboot back after a restart (the monitor did not answer): a guest reset restarts this machine instead of stopping it', { identity });
  try { await setNoReboot(rt, qmp, identity); } finally { qmp.close(); }
}

async function setNoReboot(rt: QemuRuntime, qmp: QmpClient, identity: string): Promise<void> {
  await qmp.execute('set-action', { reboot: 'shutdown' }, rt.qmpTimeoutMs).catch((err: unknown) => rt.context.log('warn', 'could not put -no-reboot back after a restart: a guest reset restarts this machine instead of stopping it', { identity, error: (err as Error).message }));
}
