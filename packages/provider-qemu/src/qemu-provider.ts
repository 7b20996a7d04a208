/**
 * The provider's methods: create (overlay + detached qemu), ready (process → qmp → guest),
 * destroy by identity, list, console, channel. No daemon: each qemu is a session leader of its own
 * (setsid) that outlives the server, and everything needed to find and verify it later sits in the
 * lease's state directory.
 */
import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import {
  VmhubError, type ConsoleHandle, type CreateRequest, type DestroyOutcome, type GuestChannel, type MachineRef,
  type OwnedMachine, type ProviderContext, type ProviderMethods, type ProviderStatus, type ReadyRequest, type TemplateConfig,
} from '@vmhub/core';
import { chooseAccel } from './accel.ts';
import { type QemuProviderOptions, templateOptions } from './options.ts';
import { defaultStateDir } from './paths.ts';
import { isAlive, procInfo, verifyQemu } from './proc.ts';
import { createQemuConsole, QmpPool } from './qemu-console.ts';
import { qemuArgv } from './qemu-argv.ts';
import { createQgaChannel } from './qga-channel.ts';
import { QmpClient } from './qmp-client.ts';
import { FILES, machineDir, readRecord, writeRecord, type StateRecord } from './state-dir.ts';

const SOURCE = 'provider-qemu';

async function isQcow2(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(4);
    await fh.read(buf, 0, 4, 0);
    return buf.toString('latin1') === 'QFI\xfb';
  } finally {
    await fh.close();
  }
}

async function tail(path: string, bytes = 1500): Promise<string> {
  const text = await readFile(path, 'latin1').catch(() => '');
  return text.slice(-bytes).replace(/\r/g, '').trim();
}

export function createQemuProviderMethods(options: QemuProviderOptions, context: ProviderContext): ProviderMethods {
  const stateDir = resolve(options.stateDir ?? process.env.VMHUB_QEMU_STATE_DIR ?? defaultStateDir());
  const binary = options.qemuBinary ?? process.env.VMHUB_QEMU_BINARY ?? 'qemu-system-x86_64';
  const qemuImg = options.qemuImg ?? process.env.VMHUB_QEMU_IMG ?? 'qemu-img';
  const wantedAccel = options.accel ?? (process.env.VMHUB_QEMU_ACCEL as 'auto' | 'kvm' | 'tcg' | undefined) ?? 'auto';
  const qmpTimeoutMs = options.qmpTimeoutMs ?? 10_000;
  const stopTimeoutMs = options.stopTimeoutMs ?? 5_000;
  const pool = new QmpPool(qmpTimeoutMs);
  const channels = new Map<string, GuestChannel>();
  let version: Promise<string> | undefined;

  const qemuVersion = (): Promise<string> => {
    version ??= execa(binary, ['--version'], { timeout: 10_000 }).then((r) => r.stdout.split('\n')[0] ?? '');
    version.catch(() => { version = undefined; });
    return version;
  };

  /**
   * The state dir to examine: the external_id when it is a directory right under stateDir (so a
   * forged identity on a real machine is caught by comparing records), else the identity's own.
   * Either way nothing is touched until the record inside names this identity.
   */
  const locate = (machine: MachineRef): string => {
    const ext = typeof machine.external_id === 'string' && isAbsolute(machine.external_id) ? resolve(machine.external_id) : '';
    return ext && dirname(ext) === stateDir ? ext : machineDir(stateDir, machine.identity);
  };

  /** The record for a machine, only when the directory's record names this identity. */
  const recordFor = async (machine: MachineRef): Promise<{ dir: string; record: StateRecord | undefined }> => {
    const dir = machineDir(stateDir, machine.identity);
    const record = await readRecord(dir);
    return { dir, record: record && record.identity === machine.identity ? record : undefined };
  };

  const requireLive = async (machine: MachineRef, what: string): Promise<{ dir: string; record: StateRecord }> => {
    const { dir, record } = await recordFor(machine);
    if (!record) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] no state record for ${machine.identity} in ${stateDir}: the machine is gone`, { source: SOURCE });
    const v = await verifyQemu(record.pid, record.pid_start_time, record.identity);
    if (v.verdict !== 'ours') {
      throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] ${what}: qemu for ${machine.identity} is not running${v.why ? ` (${v.why})` : ''}`, { source: SOURCE });
    }
    return { dir, record };
  };

  const goldenProblem = async (template: TemplateConfig): Promise<string | undefined> => {
    const t = templateOptions(template.provider_options);
    const hint = t.build_hint ? `: ${t.build_hint}` : '';
    for (const [what, path] of [['golden', template.golden], ['kernel', t.kernel], ['initrd', t.initrd]] as const) {
      if (path === undefined) continue;
      if (!isAbsolute(path)) return `${what} "${path}" must be an absolute path on the QEMU host`;
      if (!existsSync(path)) return `${what} ${path} does not exist${hint}`;
    }
    return undefined;
  };

  const stop = async (record: StateRecord, dir: string): Promise<void> => {
    const gone = async (ms: number): Promise<boolean> => {
      const until = Date.now() + ms;
      for (;;) {
        if ((await verifyQemu(record.pid, record.pid_start_time, record.identity)).verdict === 'gone') return true;
        if (Date.now() >= until) return false;
        await sleep(100);
      }
    };
    let quitSent = false;
    try {
      // Short bound: when another process (a live server, during a reaper pass) holds the
      // single-client monitor, the greeting never comes and signals take over.
      const client = await pool.get(record.identity, dir, Math.min(qmpTimeoutMs, 2_000));
      await client.execute('quit', undefined, 3_000).catch(() => undefined);
      quitSent = true;
    } catch {
      // monitor unreachable (held by another process, or wedged): fall through to signals
    }
    await pool.drop(record.identity);
    if (quitSent && (await gone(stopTimeoutMs))) return;
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      // Re-verify right before each signal: the pid must still be this qemu.
      if ((await verifyQemu(record.pid, record.pid_start_time, record.identity)).verdict !== 'ours') return;
      try { process.kill(record.pid, signal); } catch { return; }
      if (await gone(stopTimeoutMs)) return;
    }
    throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] qemu pid ${record.pid} (${record.identity}) survived quit, SIGTERM and SIGKILL`, { source: SOURCE });
  };

  return {
    async status(): Promise<ProviderStatus> {
      try {
        const v = await qemuVersion();
        const accel = await chooseAccel(wantedAccel);
        return { ok: true, details: { version: v, accel: accel.accel, accel_reason: accel.reason, state_dir: stateDir } };
      } catch (err) {
        return { ok: false, reason: `[vmhub] [${SOURCE}] ${binary} not runnable (${(err as Error).message}): apt-get install -y qemu-system-x86 qemu-utils, or set qemuBinary / VMHUB_QEMU_BINARY` };
      }
    },

    async availability(template) {
      try {
        await qemuVersion();
      } catch {
        return { availability: 'unavailable', reason: `${binary} not found: apt-get install -y qemu-system-x86 qemu-utils, or set qemuBinary / VMHUB_QEMU_BINARY` };
      }
      const accel = await chooseAccel(wantedAccel);
      if (wantedAccel === 'kvm' && accel.reason) return { availability: 'unavailable', reason: `accel "kvm" requested but ${accel.reason}: use accel "auto" or "tcg"` };
      const problem = await goldenProblem(template);
      if (problem) return { availability: 'unavailable', reason: problem };
      return { availability: 'available' };
    },

    async create(request: CreateRequest): Promise<MachineRef> {
      const { identity, template } = request;
      const dir = machineDir(stateDir, identity);
      if (dir.includes(',')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] state directory ${dir} contains a comma, which QEMU option syntax cannot carry: choose another stateDir`, { source: SOURCE });
      const existing = await readRecord(dir);
      if (existing?.identity === identity && (await verifyQemu(existing.pid, existing.pid_start_time, identity)).verdict === 'ours') {
        return { identity, external_id: dir, details: { pid: existing.pid, state_dir: dir, accel: existing.accel } };
      }
      const problem = await goldenProblem(template);
      if (problem) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] template ${template.id}: ${problem}`, { source: SOURCE });
      const t = templateOptions(template.provider_options);
      const accel = await chooseAccel(wantedAccel);
      if (wantedAccel === 'kvm' && accel.reason) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] accel "kvm" requested but ${accel.reason}`, { source: SOURCE });
      request.signal.throwIfAborted();

      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true, mode: 0o700 });
      let disk: string | undefined;
      let kernel = t.kernel;
      if (await isQcow2(template.golden)) {
        disk = join(dir, FILES.overlay);
        await execa(qemuImg, ['create', '-q', '-f', 'qcow2', '-F', 'qcow2', '-b', template.golden, disk], { timeout: 30_000 }).catch((err: Error) => {
          throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] qemu-img could not create an overlay of ${template.golden}: ${err.message}`, { source: SOURCE, cause: err });
        });
      } else {
        kernel ??= template.golden;
      }
      const argv = qemuArgv({ identity, dir, template, options: t, accel: accel.accel, machine: options.machine ?? 'q35', defaultMemoryMb: options.defaultMemoryMb ?? 512, disk, kernel });
      request.signal.throwIfAborted();

      const logFd = openSync(join(dir, FILES.log), 'a');
      let pid: number;
      try {
        const child = spawn(binary, argv, { detached: true, stdio: ['ignore', logFd, logFd] });
        pid = await new Promise<number>((ok, fail) => {
          child.once('spawn', () => ok(child.pid!));
          child.once('error', fail);
        }).catch((err: Error) => {
          throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] cannot start ${binary}: ${err.message} (apt-get install -y qemu-system-x86)`, { source: SOURCE, cause: err });
        });
        child.unref();
      } finally {
        closeSync(logFd);
      }
      let startTime = '';
      for (let i = 0; i < 50 && !startTime; i++) {
        const info = await procInfo(pid);
        if (info && info.argv.includes(identity)) startTime = info.startTime;
        else await sleep(20);
      }
      if (!startTime) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] qemu exited at once: ${await tail(join(dir, FILES.log))}`, { source: SOURCE });
      await writeRecord(dir, {
        identity, lease_id: request.lease_id, template: template.id, created_at: new Date().toISOString(),
        pid, pid_start_time: startTime, accel: accel.accel, overlay: disk ? FILES.overlay : undefined, guest_agent: t.guest_agent === true,
      });
      context.log('info', 'qemu started', { identity, pid, accel: accel.accel, template: template.id });
      return { identity, external_id: dir, details: { pid, state_dir: dir, accel: accel.accel } };
    },

    async ready(machine: MachineRef, request: ReadyRequest): Promise<void> {
      const { template, stage, signal } = request;
      const t = templateOptions(template.provider_options);
      const deadline = Date.now() + (template.ready_timeout_seconds ?? 300) * 1000;
      const dir = machineDir(stateDir, machine.identity);
      const failIfDead = async (where: string): Promise<void> => {
        const { record } = await recordFor(machine);
        const v = record ? await verifyQemu(record.pid, record.pid_start_time, record.identity) : { verdict: 'gone' as const };
        if (v.verdict !== 'ours') {
          stage(where, 'failed', 'qemu exited');
          throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] qemu for ${machine.identity} exited during ${where}: ${await tail(join(dir, FILES.log), 600)} | serial: ${await tail(join(dir, FILES.serial), 600)}`, { source: SOURCE });
        }
      };
      const timedOut = async (where: string): Promise<never> => {
        stage(where, 'failed', 'timed out');
        throw new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] ${machine.identity} not ready after ${template.ready_timeout_seconds ?? 300} s at stage "${where}"; serial tail: ${await tail(join(dir, FILES.serial), 600)}`, { source: SOURCE });
      };
      const pause = (ms: number) => sleep(ms, undefined, { signal });

      stage('process', 'running');
      await failIfDead('process');
      stage('process', 'done');

      stage('qmp', 'running');
      for (;;) {
        signal.throwIfAborted();
        await failIfDead('qmp');
        try {
          const client = await pool.get(machine.identity, dir);
          const st = (await client.execute('query-status', undefined, qmpTimeoutMs)) as { status?: string };
          stage('qmp', 'done', `vm ${st.status ?? 'unknown'}`);
          break;
        } catch {
          if (Date.now() > deadline) await timedOut('qmp');
          await pause(100);
        }
      }

      stage('guest', 'running');
      const probes: string[] = [];
      if (t.ready_marker) {
        const marker = Buffer.from(t.ready_marker);
        for (;;) {
          signal.throwIfAborted();
          const log = await readFile(join(dir, FILES.serial)).catch(() => Buffer.alloc(0));
          if (log.includes(marker)) break;
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
            const qga = await QmpClient.connect(join(dir, FILES.qga), { protocol: 'qga', timeoutMs: 3_000, label: machine.identity });
            try { await qga.execute('guest-ping', undefined, 3_000); } finally { qga.close(); }
            break;
          } catch (err) {
            last = (err as Error).message;
            await failIfDead('guest');
            if (Date.now() > deadline) {
              stage('guest', 'failed', 'guest agent silent');
              throw new VmhubError('BOOT_TIMEOUT', `[vmhub] [${SOURCE}] ${machine.identity}: the guest agent never answered guest-ping (${last}); is qemu-guest-agent installed and started in the golden?`, { source: SOURCE });
            }
            await pause(500);
          }
        }
        probes.push('guest agent answered guest-ping');
      }
      stage('guest', 'done', probes.length > 0 ? probes.join('; ') : 'no readiness probe configured (ready_marker or guest_agent)');
    },

    async destroy(machine: MachineRef): Promise<DestroyOutcome> {
      const dir = locate(machine);
      if (!existsSync(dir)) return 'already_gone';
      const record = await readRecord(dir);
      if (!record || record.identity !== machine.identity || basename(dir) !== machine.identity) {
        context.log('warn', 'state record does not carry this identity; left alone', { identity: machine.identity, dir, found: record?.identity });
        return 'identity_mismatch';
      }
      const v = await verifyQemu(record.pid, record.pid_start_time, record.identity);
      if (v.verdict === 'mismatch') {
        context.log('warn', 'process named by the state record is not this machine; left alone', { identity: machine.identity, pid: record.pid, why: v.why });
        return 'identity_mismatch';
      }
      await channels.get(machine.identity)?.close().catch(() => undefined);
      channels.delete(machine.identity);
      if (v.verdict === 'ours') await stop(record, dir);
      else await pool.drop(machine.identity);
      await rm(dir, { recursive: true, force: true });
      context.log('info', 'qemu destroyed', { identity: machine.identity, pid: record.pid, was_running: v.verdict === 'ours' });
      return v.verdict === 'ours' ? 'destroyed' : 'already_gone';
    },

    async list(): Promise<OwnedMachine[]> {
      const names = await readdir(stateDir).catch(() => [] as string[]);
      const out: OwnedMachine[] = [];
      for (const name of names) {
        if (!name.startsWith(context.identityPrefix)) continue;
        const dir = join(stateDir, name);
        const record = await readRecord(dir);
        let created = record ? Date.parse(record.created_at) : NaN;
        if (Number.isNaN(created)) created = (await stat(dir).catch(() => undefined))?.mtimeMs ?? Date.now();
        const alive = record ? (await verifyQemu(record.pid, record.pid_start_time, name)).verdict : 'gone';
        out.push({ identity: name, external_id: dir, created_at: created, details: { pid: record?.pid, state_dir: dir, process: alive } });
      }
      return out;
    },

    async console(machine: MachineRef): Promise<ConsoleHandle> {
      const { dir } = await requireLive(machine, 'console');
      return createQemuConsole(pool, machine.identity, dir, qmpTimeoutMs);
    },

    async channel(machine: MachineRef, template: TemplateConfig): Promise<GuestChannel> {
      if (!templateOptions(template.provider_options).guest_agent) {
        throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] this template has no guest agent channel: set provider_options.guest_agent: true and install qemu-guest-agent in the golden`, { source: SOURCE });
      }
      const { dir, record } = await requireLive(machine, 'channel');
      if (!record.guest_agent) {
        throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${machine.identity} was started without a guest agent socket: this template has no guest agent channel`, { source: SOURCE });
      }
      let ch = channels.get(machine.identity);
      if (!ch) {
        ch = createQgaChannel({ socketPath: join(dir, FILES.qga), label: machine.identity, timeoutMs: qmpTimeoutMs });
        channels.set(machine.identity, ch);
      }
      return ch;
    },

    async close(): Promise<void> {
      await Promise.all([...channels.values()].map((c) => c.close().catch(() => undefined)));
      channels.clear();
      await pool.closeAll();
    },
  };
}

/** True when `pid` is alive (for tests and the reaper's diagnostics). */
export async function pidAlive(pid: number): Promise<boolean> {
  return isAlive(await procInfo(pid));
}
