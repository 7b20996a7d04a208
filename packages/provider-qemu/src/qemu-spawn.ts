/**
 * Starting and stopping one qemu-system process, shared by lease creation (qemu-create.ts), the
 * saved-state maker (qemu-saved-state-make.ts) and destroy (qemu-destroy.ts).
 *
 * spawnQemu: a detached session leader (it outlives this process, unless `dieWithThisProcess`)
 * with stdout/stderr appended to qemu.log in its directory; resolves once /proc shows the pid carrying its `-name` identity, with
 * the start time that every later verification compares (proc.ts). A qemu that exits at once is
 * PROVISION_FAILED with the end of its log.
 *
 * stopQemu: QMP `quit` on the provider's monitor, then SIGTERM, then SIGKILL, re-verifying the
 * process (pid + start time + `-name`) before each signal, so a reused pid is never signalled
 * (`discard`: the verified SIGKILL alone, for a machine a restore replaces).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError } from '@vmhub/core';
import { procInfo, verifyQemu } from './proc.ts';
import { QmpClient } from './qmp-client.ts';
import { SOURCE, tail, type QemuRuntime } from './qemu-runtime.ts';
import { FILES } from './state-dir.ts';

export interface Spawned {
  pid: number;
  /** Field 22 of /proc/<pid>/stat. */
  startTime: string;
}

export interface SpawnOptions {
  /**
   * The qemu dies with this process (util-linux `setpriv --pdeathsig KILL`, kept across the exec):
   * for a machine no lease owns — the saved-state maker's — which neither destroy nor the reaper
   * would ever find if this process were killed mid-way.
   */
  dieWithThisProcess?: boolean;
  /**
   * A migration stream for `-incoming defer`, opened here and inherited by qemu as fd INCOMING_FD
   * (qemu-restore.ts loads it with `migrate-incoming fd:3`): qemu reads the file itself, without
   * the `sh -c cat` pair and the pipe that `exec:cat` costs (bench/qemu-snapshot.mjs: the load
   * alone in about half the time).
   */
  incomingFile?: string;
}

/** The descriptor number qemu holds `SpawnOptions.incomingFile` at. */
export const INCOMING_FD = 3;

export async function spawnQemu(rt: QemuRuntime, dir: string, argv: string[], identity: string, options: SpawnOptions = {}): Promise<Spawned> {
  let pid: number;
  const logFd = openSync(join(dir, FILES.log), 'a');
  let stateFd: number | undefined;
  try {
    if (options.incomingFile) {
      try {
        stateFd = openSync(options.incomingFile, 'r');
      } catch (err) {
        throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] cannot open the state to load ${options.incomingFile}: ${(err as Error).message}`, { source: SOURCE, cause: err });
      }
    }
    const [file, args] = options.dieWithThisProcess ? ['setpriv', ['--pdeathsig', 'KILL', '--', rt.binary, ...argv]] : [rt.binary, argv];
    // stdio[INCOMING_FD] is the state file when there is one.
    const child = spawn(file, args, { detached: true, stdio: ['ignore', logFd, logFd, ...(stateFd === undefined ? [] : [stateFd])] });
    pid = await new Promise<number>((ok, fail) => {
      child.once('spawn', () => ok(child.pid!));
      child.once('error', fail);
    }).catch((err: Error) => {
      throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] cannot start ${rt.binary}: ${err.message} (apt-get install -y qemu-system-x86)`, { source: SOURCE, cause: err });
    });
    child.unref();
  } finally {
    closeSync(logFd);
    if (stateFd !== undefined) closeSync(stateFd);
  }
  for (let i = 0; i < 250; i++) {
    const info = await procInfo(pid);
    // Until the exec, the pid may still be setpriv (its argv carries the identity too).
    if (info && info.argv.includes(identity) && info.argv[0] !== 'setpriv') return { pid, startTime: info.startTime };
    if (!info || info.state === 'Z') break;
    await sleep(i < 50 ? 4 : 20);
  }
  throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] qemu exited at once: ${await tail(join(dir, FILES.log))}`, { source: SOURCE });
}

export interface StopTarget {
  pid: number;
  pid_start_time: string;
  identity: string;
}

/**
 * QMP quit, then SIGTERM, then SIGKILL, re-verifying the process before each signal. `discard`:
 * straight to the verified SIGKILL — for a machine whose state is thrown away (a restore replaces
 * it), where a clean quit only costs time.
 */
export async function stopQemu(rt: QemuRuntime, target: StopTarget, dir: string, options: { discard?: boolean } = {}): Promise<void> {
  const gone = async (ms: number): Promise<boolean> => {
    const until = Date.now() + ms;
    for (let i = 0; ; i++) {
      if ((await verifyQemu(target.pid, target.pid_start_time, target.identity)).verdict === 'gone') return true;
      if (Date.now() >= until) return false;
      await sleep(i < 20 ? 5 : 50);
    }
  };
  if (options.discard) {
    if ((await verifyQemu(target.pid, target.pid_start_time, target.identity)).verdict !== 'ours') return;
    try { process.kill(target.pid, 'SIGKILL'); } catch { return; }
    if (await gone(rt.stopTimeoutMs)) return;
    throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] qemu pid ${target.pid} (${target.identity}) survived SIGKILL`, { source: SOURCE });
  }
  let quitSent = false;
  try {
    // Short bound: when another process (a server's ready() during a reaper pass, an operator's
    // qmp-shell) holds the single-client monitor, the greeting never comes and signals take over.
    const client = await QmpClient.connect(join(dir, FILES.qmp), { protocol: 'qmp', timeoutMs: Math.min(rt.qmpTimeoutMs, 2_000), label: target.identity });
    try {
      await client.execute('quit', undefined, 3_000).catch(() => undefined);
      quitSent = true;
    } finally {
      client.close();
    }
  } catch {
    // monitor unreachable (held by another process, or wedged): fall through to signals
  }
  if (quitSent && (await gone(rt.stopTimeoutMs))) return;
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    // Re-verify right before each signal: the pid must still be this qemu.
    if ((await verifyQemu(target.pid, target.pid_start_time, target.identity)).verdict !== 'ours') return;
    try { process.kill(target.pid, signal); } catch { return; }
    if (await gone(rt.stopTimeoutMs)) return;
  }
  throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] qemu pid ${target.pid} (${target.identity}) survived quit, SIGTERM and SIGKILL`, { source: SOURCE });
}

/**
 * An ephemeral 127.0.0.1 port per forwarded guest port, picked by binding port 0. QEMU binds it a
 * moment later; a port taken in between makes qemu exit at once with a message saying so.
 */
export async function freePorts(guestPorts: number[]): Promise<Record<number, number>> {
  const out: Record<number, number> = {};
  for (const guest of guestPorts) {
    out[guest] = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => { const { port } = srv.address() as AddressInfo; srv.close(() => resolve(port)); });
    });
  }
  return out;
}
