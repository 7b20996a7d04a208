/**
 * ready(): `process` (the recorded pid is this qemu) → `qmp` (monitor greets, capabilities,
 * query-status) → `guest` (serial marker and/or guest-agent ping). Every wait is bounded by the
 * template's ready_timeout_seconds and the caller's signal; a qemu that dies fails at once.
 *
 * A machine resumed from a saved state (its record names `restored_from`) or from a snapshot (a
 * fork, or a lease put back to one: its record names `snapshot`) printed its serial
 * marker before the state was saved, so it is not waited for again: `qmp` waits until
 * query-status says "running", and `guest` connects to the guest agent (when the template has
 * one; begun before the `process` stage, so the guest's first round trip overlaps the host-side
 * checks), whose answer to connect()'s guest-sync (a random id) proves it responsive, then sends
 * `guest-set-time` with the host's time (the saved clock is as old as the saved state) without
 * waiting for its answer: qemu-ga sets the clock as soon as it reads the request, then spends
 * ≈ 0.2–0.4 s under TCG spawning `/sbin/hwclock -w`. The connection stays
 * open until that answer (clockSetInBackground), and the agent's socket serves one client at a
 * time, in order, so the first agent command after ready() (a channel's guest-sync, from this
 * process or another) runs only once the clock is set. A clock that cannot be set is logged once;
 * it does not fail the lease. The stage detail says the machine resumed from saved state.
 *
 * A machine that rebooted (its record names `rebooted`: qemu-restart.ts) is waited on like a cold
 * boot, whatever it resumed from before: the serial marker is looked for only in what the guest
 * printed after the reset, and once it is up -no-reboot is put back (qemu-restart.ts).
 *
 * A template with provider_options.ssh has one more stage, `ssh`: the forwarded ssh port answers
 * with an SSH banner (the golden installed the lease's key from its seed before starting sshd).
 *
 * readyIn() is the same walk for any state directory: the saved-state maker uses it on its VM.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type MachineRef, type ReadyRequest } from '@vmhub/core';
import { templateOptions } from './options.ts';
import { verifyQemu } from './proc.ts';
import { QmpClient } from './qmp-client.ts';
import { SOURCE, tail, type QemuRuntime } from './qemu-runtime.ts';
import { noRebootAgain } from './qemu-restart.ts';
import { bannerAt, sshOf } from './qemu-ssh.ts';
import { FILES, machineDir, readFrom, readRecord } from './state-dir.ts';

export async function ready(rt: QemuRuntime, machine: MachineRef, request: ReadyRequest): Promise<void> {
  return readyIn(rt, { dir: machineDir(rt.stateDir, machine.identity), identity: machine.identity }, request);
}

const clockWarned = new WeakSet<QemuRuntime>();

export async function readyIn(rt: QemuRuntime, target: { dir: string; identity: string }, request: ReadyRequest): Promise<void> {
  const { template, stage, signal } = request;
  const { dir, identity } = target;
  const t = templateOptions(template.provider_options);
  const deadline = Date.now() + (template.ready_timeout_seconds ?? 300) * 1000;
  const initial = await readRecord(dir);
  const own = initial?.identity === identity ? initial : undefined;
  // A machine resumed from memory (a saved state, or a snapshot it was forked from or put back to).
  // …unless it rebooted since (qemu-restart.ts): then it boots anew, its marker printed after the reset.
  const restoredFrom = own?.rebooted ? undefined : own?.snapshot ? `snapshot ${own.snapshot}` : own?.restored_from ? `saved state ${own.restored_from}` : undefined;
  const failIfDead = async (where: string): Promise<void> => {
    const record = await readRecord(dir);
    const v = record?.identity === identity ? await verifyQemu(record.pid, record.pid_start_time, record.identity) : { verdict: 'gone' as const };
    if (v.verdict !== 'ours') {
      stage(where, 'failed', 'qemu exited');
      throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] qemu for ${identity} exited during ${where}: ${await tail(join(dir, FILES.log), 600)} | serial: ${await tail(join(dir, FILES.serial), 600)}`, { source: SOURCE });
    }
  };
  const timedOut = async (where: string): Promise<never> => {
    stage(where, 'failed', 'timed out');
    throw new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] ${identity} not ready after ${template.ready_timeout_seconds ?? 300} s at stage "${where}"; serial tail: ${await tail(join(dir, FILES.serial), 600)}`, { source: SOURCE });
  };
  const pause = (ms: number) => sleep(ms, undefined, { signal });

  // A resumed machine's first agent round trip is its slowest (TCG translates the guest's code
  // paths anew after the load): begun now, it overlaps the process and monitor checks; a failed
  // one is retried in the guest stage, an unclaimed one closed.
  let early = restoredFrom && t.guest_agent ? QmpClient.connect(join(dir, FILES.qga), { protocol: 'qga', timeoutMs: 3_000, label: identity }).catch(() => undefined) : undefined;
  try {
    stage('process', 'running');
    await failIfDead('process');
    stage('process', 'done');

    stage('qmp', 'running');
    for (;;) {
      signal.throwIfAborted();
      await failIfDead('qmp');
      try {
        // Connected for this check only: the monitor serves one client, and destroy (maybe from
        // the reaper, another process) needs it for a clean quit.
        const client = await QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs: rt.qmpTimeoutMs, label: identity });
        let st: { status?: string };
        try { st = (await client.execute('query-status', undefined, rt.qmpTimeoutMs)) as { status?: string }; } finally { client.close(); }
        // A restored machine is ready only once it runs (create resumed it after the incoming migration).
        if (restoredFrom && st.status !== 'running') throw new Error(`vm ${st.status ?? 'unknown'}`);
        stage('qmp', 'done', `vm ${st.status ?? 'unknown'}`);
        break;
      } catch {
        if (Date.now() > deadline) await timedOut('qmp');
        await pause(restoredFrom ? 20 : 100);
      }
    }

    stage('guest', 'running');
    const probes: string[] = [];
    if (restoredFrom) {
      probes.push(`resumed from ${restoredFrom} (its serial marker was seen before the save)`);
    } else if (t.ready_marker) {
      const marker = Buffer.from(t.ready_marker);
      const from = own?.rebooted?.serial_offset ?? 0;
      let offset = from;
      for (;;) {
        signal.throwIfAborted();
        // Read only what is new (plus an overlap for a marker split across reads): a chatty guest's
        // serial log can grow large while booting.
        const fresh = await readFrom(join(dir, FILES.serial), Math.max(from, offset - marker.length));
        if (fresh.data.includes(marker)) break;
        offset = fresh.end;
        await failIfDead('guest');
        if (Date.now() > deadline) await timedOut('guest');
        await pause(250);
      }
      probes.push(`serial marker ${t.ready_marker}`);
    }
    if (t.guest_agent) {
      let last = '';
      for (;;) {
        signal.throwIfAborted();
        try {
          const claimed = early;
          early = undefined;
          const qga = (claimed && await claimed) ?? await QmpClient.connect(join(dir, FILES.qga), { protocol: 'qga', timeoutMs: 3_000, label: identity });
          let handedOver = false;
          try {
            // connect() had the agent answer guest-sync (a fresh random id): on a resumed machine,
            // whose first round trips are slow under TCG (code not yet translated), that answer
            // is the proof; a booted one is pinged as well.
            if (restoredFrom) {
              probes.push(`guest agent answered guest-sync; ${clockSetInBackground(rt, qga, identity)}`);
              handedOver = true;
            } else {
              await qga.execute('guest-ping', undefined, 3_000);
            }
          } finally { if (!handedOver) qga.close(); }
          break;
        } catch (err) {
          last = (err as Error).message;
          await failIfDead('guest');
          if (Date.now() > deadline) {
            stage('guest', 'failed', 'guest agent silent');
            throw new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] ${identity}: the guest agent never answered guest-ping (${last}); is qemu-guest-agent installed and started in the golden?`, { source: SOURCE });
          }
          await pause(restoredFrom ? 50 : 500);
        }
      }
      if (!restoredFrom) probes.push('guest agent answered guest-ping');
    }
    stage('guest', 'done', probes.length > 0 ? probes.join('; ') : 'no readiness probe configured (ready_marker or guest_agent)');
    // Up again after a restart, which switched -no-reboot off for the way up: on again.
    if (own?.rebooted) await noRebootAgain(rt, dir, identity);

    const ssh = sshOf(t);
    if (!ssh) return;
    stage('ssh', 'running');
    const host = (await readRecord(dir))?.forwards?.[ssh.port];
    if (!host) {
      stage('ssh', 'failed', `guest port ${ssh.port} not forwarded`);
      throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] ${identity}: the ssh port ${ssh.port} is not in the machine's forwards`, { source: SOURCE });
    }
    for (;;) {
      signal.throwIfAborted();
      const banner = await bannerAt(host);
      if (banner?.startsWith('SSH-')) {
        stage('ssh', 'done', `sshd answered on guest port ${ssh.port} (${banner})`);
        return;
      }
      await failIfDead('ssh');
      if (Date.now() > deadline) await timedOut('ssh');
      await pause(250);
    }
  } finally {
    if (early) void early.then((c) => c?.close());
  }
}

/**
 * The guest's clock to the host's, not waited for: a restored guest's clock is where it was when
 * the state was saved. Sends `guest-set-time` on `qga` (which it owns from here and closes once
 * the answer is in) and returns the stage detail. qemu-ga calls settimeofday() as soon as it reads
 * the request and only then runs `/sbin/hwclock -w`, a process spawn that costs ≈ 0.2–0.4 s under
 * TCG; holding the connection until the answer keeps every later agent client (the agent's socket
 * serves one at a time) behind the clock set. A failure (an agent without guest-set-time, a guest
 * without /sbin/hwclock, which qemu-ga requires, a qemu gone meanwhile) is logged once, never thrown.
 */
function clockSetInBackground(rt: QemuRuntime, qga: QmpClient, identity: string): string {
  qga.execute('guest-set-time', { time: Date.now() * 1_000_000 }, 5_000).then(
    () => undefined,
    (err: unknown) => {
      if (clockWarned.has(rt)) return;
      clockWarned.add(rt);
      rt.context.log('warn', 'the guest clock of a restored machine could not be set: it runs from the time its saved state was made', { identity, error: (err as Error).message });
    },
  ).finally(() => qga.close());
  return 'guest clock being set to the host\'s (guest-set-time sent; the agent\'s next command waits for it)';
}
