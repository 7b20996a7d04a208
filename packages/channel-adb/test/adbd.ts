/**
 * Test fixture: the REAL adbd (Debian bookworm-backports package `adbd`, AOSP 34) on a free TCP
 * port, and a private adb server (`adb -P <port>`) so a default server on 5037 is never touched.
 * Both are started by the test and killed after. adbd needs root and asks for no authorization.
 */
import { spawn, execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';

export const ADBD = '/usr/sbin/adbd';
export const ADB = '/usr/bin/adb';

/** Why these tests cannot run here, or undefined when they can. */
export function adbMissing(): string | undefined {
  if (!existsSync(ADBD) || !existsSync(ADB)) return 'adb/adbd not installed (apt-get install -t bookworm-backports adbd adb)';
  if (process.getuid?.() !== 0) return 'adbd must run as root';
  return undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface Adbd {
  port: number;
  proc: ChildProcess;
  stop(): Promise<void>;
}

export async function startAdbd(): Promise<Adbd> {
  const port = await freePort();
  const proc = spawn(ADBD, [], { env: { ...process.env, ADBD_PORT: String(port) }, stdio: 'ignore' });
  // Wait until it accepts TCP.
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect({ host: '127.0.0.1', port });
      s.once('connect', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
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
  stop(): void;
}

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

/** Processes on this host whose command line contains `needle` (adbd runs them here). */
export function processesWith(needle: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(needle) && !l.includes('ps -eo')).map((l) => Number.parseInt(l.trim(), 10));
}

/** Why a test cannot run a command as another local user here, or undefined when it can. */
export function otherUserMissing(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to run commands as nobody (setpriv)';
  if (!existsSync('/usr/bin/setpriv')) return 'setpriv missing (util-linux)';
  return undefined;
}

/**
 * Run `argv` as the local user `nobody` (no groups), HOME=`home`; never throws: the exit status,
 * stdout and stderr come back for the test to judge.
 */
export function runAsNobody(argv: string[], home: string, timeoutMs = 30_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', ...argv], { env: { PATH: process.env.PATH, HOME: home }, timeout: timeoutMs }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}
