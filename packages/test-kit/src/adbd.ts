/**
 * The REAL adbd (Debian bookworm-backports package `adbd`, AOSP 34) on a free TCP port, and a
 * private adb server (`adb -P <port>`) so a default server on 5037 is never touched. Both are
 * started by the test and killed after. adbd needs root and asks for no authorization.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort, waitPort } from './ports.ts';

export const ADBD = '/usr/sbin/adbd';
export const ADB = '/usr/bin/adb';

/** Why adbd tests cannot run here, or undefined when they can. */
export function adbMissing(): string | undefined {
  if (!existsSync(ADBD) || !existsSync(ADB)) return 'adb/adbd not installed (apt-get install -t bookworm-backports adbd adb)';
  if (process.getuid?.() !== 0) return 'adbd must run as root';
  return undefined;
}

export interface Adbd {
  port: number;
  proc: ChildProcess;
  /** SIGKILL adbd and wait for it to exit. */
  stop(): Promise<void>;
}

export interface AdbdOptions {
  /** Extra environment for adbd (and so for every shell command it runs), e.g. PATH. */
  env?: Record<string, string>;
  /** How long adbd may take to accept connections (ms). */
  readyMs?: number;
}

/** adbd listening on a free loopback port (ADBD_PORT), resolved once it accepts connections. */
export async function startAdbd(options: AdbdOptions = {}): Promise<Adbd> {
  const port = await freePort();
  const proc = spawn(ADBD, [], { env: { ...process.env, ...options.env, ADBD_PORT: String(port) }, stdio: 'ignore' });
  try {
    await waitPort(port, options.readyMs ?? 5000, () => proc.exitCode !== null || proc.signalCode !== null);
  } catch (err) {
    proc.kill('SIGKILL');
    throw new Error(`adbd: ${(err as Error).message}`);
  }
  return {
    port,
    proc,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const gone = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await gone;
    },
  };
}

export interface AdbServer {
  port: number;
  /** `adb -P <port> kill-server` (a server already gone is fine). */
  stop(): void;
}

/** A private adb server on a free port (`adb -P <port> start-server`). */
export async function startAdbServer(): Promise<AdbServer> {
  const port = await freePort();
  execFileSync(ADB, ['-P', String(port), 'start-server'], { stdio: 'ignore' });
  return {
    port,
    stop() {
      try {
        execFileSync(ADB, ['-P', String(port), 'kill-server'], { stdio: 'ignore' });
      } catch {
        // already gone
      }
    },
  };
}
