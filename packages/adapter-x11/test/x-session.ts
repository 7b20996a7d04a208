/**
 * A real X desktop on this host for the tests: Xvfb on a free display (:90–:199, 1280×800×24)
 * plus openbox (an EWMH window manager: wmctrl and _NET_ACTIVE_WINDOW need one). Every process
 * started here is killed by stop(). Needs Debian's xvfb, openbox, xterm, wmctrl, xclip, x11-apps,
 * x11-utils and xdotool; a missing one fails the suite loudly.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const REQUIRED_BINARIES = ['Xvfb', 'openbox', 'xterm', 'xdotool', 'wmctrl', 'xclip', 'xwd', 'xprop', 'xwininfo', 'xev'];

export interface XSession {
  display: string;
  home: string;
  env: Record<string, string>;
  /** Start a client on the display (argv, no shell); killed by stop(). */
  spawnX(argv: string[]): ChildProcess;
  /** Track a pid started by someone else (vm_launch) so stop() kills it. */
  adopt(pid: number): void;
  stop(): Promise<void>;
}

/** Whether a live X server holds display :n (its abstract socket, or a lock naming a live pid). */
export function displayInUse(n: number): boolean {
  try {
    if (readFileSync('/proc/net/unix', 'utf8').includes(`@/tmp/.X11-unix/X${n}\n`)) return true;
  } catch { /* no procfs: fall back to the lock file */ }
  const lock = `/tmp/.X${n}-lock`;
  if (!existsSync(lock)) return false;
  const pid = Number(readFileSync(lock, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
}

function kill(c: ChildProcess, signal: NodeJS.Signals): void {
  if (c.exitCode === null && c.signalCode === null) c.kill(signal);
}

async function terminate(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
  c.kill('SIGTERM');
  const t = setTimeout(() => kill(c, 'SIGKILL'), 3000);
  await exited;
  clearTimeout(t);
}

export async function startXSession(): Promise<XSession> {
  const missing = REQUIRED_BINARIES.filter((b) => { try { execFileSync('sh', ['-c', 'command -v "$1"', 'sh', b], { stdio: 'ignore' }); return false; } catch { return true; } });
  if (missing.length) throw new Error(`test desktop needs ${missing.join(', ')}: apt-get install -y xvfb openbox xterm xdotool wmctrl xclip x11-apps x11-utils`);
  const home = mkdtempSync(join(tmpdir(), 'vmhub-x11-home-'));
  const children: ChildProcess[] = [];
  const adopted: number[] = [];
  let display = '';
  let env: Record<string, string> = {};
  const wait = async (what: string, probe: string[], ms: number, alive?: ChildProcess) => {
    const deadline = Date.now() + ms;
    for (;;) {
      if (alive && (alive.exitCode !== null || alive.signalCode !== null)) throw new Error(`${what} exited (code ${alive.exitCode}) on ${display}`);
      try { execFileSync(probe[0]!, probe.slice(1), { env: { ...process.env, ...env }, stdio: 'ignore', timeout: 5000 }); return; } catch { /* not yet */ }
      if (Date.now() > deadline) throw new Error(`${what} did not come up on ${display} within ${ms} ms`);
      await sleep(100);
    }
  };
  // A display number may be taken by an X server we cannot see (another test in another mount
  // namespace still shares the abstract socket), or grabbed by a concurrent suite: the display
  // counts as ours only when its lock file names our Xvfb and openbox starts on it. A lock file
  // whose pid is gone (an X server that was SIGKILLed) is stale: Xvfb replaces it itself.
  let xvfb: ChildProcess | undefined;
  let wm: ChildProcess | undefined;
  let failures = 0;
  for (let attempt = 0; ; attempt++) {
    const n = 90 + Math.floor(Math.random() * 110);
    if (attempt > 200) throw new Error('no free X display between :90 and :199');
    if (displayInUse(n)) continue;
    display = `:${n}`;
    wm = undefined;
    env = { DISPLAY: display, LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8', HOME: home };
    xvfb = spawn('Xvfb', [display, '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    try {
      await wait('Xvfb', ['xwininfo', '-root'], 20_000, xvfb);
      const lock = readFileSync(`/tmp/.X${n}-lock`, 'utf8').trim();
      if (Number(lock) !== xvfb.pid) throw new Error(`display ${display} belongs to pid ${lock}, not our Xvfb ${xvfb.pid}`);
      wm = spawn('openbox', [], { env: { ...process.env, ...env }, stdio: 'ignore', cwd: home });
      await wait('openbox', ['wmctrl', '-m'], 20_000, wm);
      await sleep(200);
      if (wm.exitCode !== null || xvfb.exitCode !== null) throw new Error(`openbox or Xvfb exited on ${display}`);
      children.push(xvfb, wm);
      break;
    } catch (err) {
      wm?.kill('SIGKILL');
      xvfb.kill('SIGKILL');
      if (attempt >= 200 || ++failures >= 5) { rmSync(home, { recursive: true, force: true }); throw err; }
    }
  }
  const session: XSession = {
    display, home, env,
    spawnX(argv) {
      const child = spawn(argv[0]!, argv.slice(1), { env: { ...process.env, ...env }, stdio: 'ignore', cwd: home });
      children.push(child);
      return child;
    },
    adopt(pid) { adopted.push(pid); },
    async stop() {
      for (const pid of adopted) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
      // Clients die at once; the window manager and Xvfb get SIGTERM so Xvfb removes its lock
      // file and socket (a SIGKILLed X server leaves both behind), SIGKILL if they linger.
      const servers = new Set([xvfb, wm]);
      for (const c of children.reverse()) { if (!servers.has(c)) kill(c, 'SIGKILL'); }
      for (const c of [wm, xvfb]) { if (c) await terminate(c); }
      rmSync(home, { recursive: true, force: true });
    },
  };
  return session;
}
