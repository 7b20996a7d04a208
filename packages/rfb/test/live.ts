/**
 * Real VNC servers from Debian for the live tests: Xvfb + x11vnc, TigerVNC's Xvnc, xterm and xev
 * as the X clients whose effects are checked. Each test starts its own display on a free number
 * and port and stops what it started (by pid) in `stopAll`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { accepts, freePort, until } from '@vmhub/test-kit';

const started: ChildProcess[] = [];

export function have(...bins: string[]): string | undefined {
  const missing = bins.filter((b) => spawnSync('sh', ['-c', `command -v ${b}`]).status !== 0);
  return missing.length ? `missing ${missing.join(', ')} (apt-get install -y xvfb x11vnc tigervnc-standalone-server tigervnc-tools xterm x11-utils xdotool x11-xserver-utils)` : undefined;
}

export function bg(cmd: string, args: string[], env: Record<string, string> = {}, log?: string): ChildProcess {
  // A UTF-8 locale whatever the runner's: in the C locale xterm writes "ä" as one Latin-1 byte.
  const child = spawn(cmd, args, { env: { ...process.env, LC_ALL: 'C.UTF-8', ...env }, stdio: ['ignore', log ? 'pipe' : 'ignore', log ? 'pipe' : 'ignore'] });
  started.push(child);
  child.on('error', () => undefined);
  return child;
}

export async function stopAll(): Promise<void> {
  for (const c of started.splice(0).reverse()) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGTERM');
      await Promise.race([new Promise((ok) => c.once('exit', ok)), sleep(2000)]);
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    }
  }
}

export function freeDisplay(): number {
  for (let i = 0; i < 200; i++) {
    const n = 200 + Math.floor(Math.random() * 600);
    if (!existsSync(`/tmp/.X11-unix/X${n}`) && !existsSync(`/tmp/.X${n}-lock`)) return n;
  }
  throw new Error('no free X display number');
}

export function dial(port: number): Promise<Socket> {
  return new Promise((ok, fail) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => ok(s));
    s.once('error', fail);
  });
}

export async function xvfb(size = '640x480'): Promise<string> {
  const n = freeDisplay();
  bg('Xvfb', [`:${n}`, '-screen', '0', `${size}x24`, '-nolisten', 'tcp']);
  await until(() => existsSync(`/tmp/.X11-unix/X${n}`), `Xvfb :${n}`, 15_000);
  await until(() => spawnSync('xdpyinfo', ['-display', `:${n}`], { stdio: 'ignore' }).status === 0, `Xvfb :${n} to answer`, 15_000);
  return `:${n}`;
}

/** x11vnc on a display; extra args e.g. ['-rfbversion', '3.3'] or ['-passwd', 'pw']. */
export async function x11vnc(display: string, extra: string[] = []): Promise<number> {
  const port = await freePort();
  bg('x11vnc', ['-display', display, '-rfbport', String(port), '-localhost', '-forever', '-shared', '-quiet', '-noxdamage', ...(extra.includes('-passwd') || extra.includes('-rfbauth') ? [] : ['-nopw']), ...extra]);
  await until(() => accepts(port), `x11vnc on ${port}`, 15_000);
  return port;
}

/** TigerVNC's Xvnc: an X server that is its own VNC server. With a password: VncAuth only. */
export async function xvnc(options: { password?: string; size?: string } = {}): Promise<{ display: string; port: number }> {
  const n = freeDisplay();
  const port = await freePort();
  const args = [`:${n}`, '-geometry', options.size ?? '800x600', '-depth', '24', '-rfbport', String(port), '-localhost', 'yes', '-nolisten', 'tcp', '-AlwaysShared'];
  if (options.password) {
    const file = `/tmp/vmhub-rfb-test-${n}.passwd`;
    const r = spawnSync('sh', ['-c', `printf '%s\\n' "$PW" | vncpasswd -f > ${file}`], { env: { ...process.env, PW: options.password } });
    if (r.status !== 0) throw new Error(`vncpasswd failed: ${r.stderr}`);
    args.push('-SecurityTypes', 'VncAuth', '-PasswordFile', file);
  } else {
    args.push('-SecurityTypes', 'None');
  }
  bg('Xvnc', args);
  await until(() => accepts(port), `Xvnc :${n} on ${port}`, 15_000);
  return { display: `:${n}`, port };
}

/** An xterm whose stdin goes to `file` (typed text arrives there), at +0+0. */
export async function xtermCat(display: string, file: string): Promise<void> {
  bg('xterm', ['-geometry', '60x10+0+0', '-e', 'sh', '-c', `cat > ${file}`], { DISPLAY: display });
  await until(() => spawnSync('xdotool', ['search', '--class', 'xterm'], { env: { ...process.env, DISPLAY: display } }).status === 0, 'the xterm window', 15_000);
  await until(() => existsSync(file), `${file} to be created`, 15_000);
}

/** xev's window at (x, y) logging mouse events to a file; returns a reader of the root coordinates of each event. */
export async function xevWindow(display: string, log: string, geometry = '300x200+300+200'): Promise<() => Array<{ type: string; x: number; y: number; button?: number }>> {
  const child = bg('stdbuf', ['-oL', 'xev', '-geometry', geometry, '-event', 'mouse'], { DISPLAY: display }, log);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  await until(() => spawnSync('xdotool', ['search', '--name', 'Event Tester'], { env: { ...process.env, DISPLAY: display } }).status === 0, 'the xev window', 15_000);
  return () => {
    const events: Array<{ type: string; x: number; y: number; button?: number }> = [];
    for (const block of out.split('\n\n')) {
      const m = /^(\w+) event[\s\S]*?root:\((-?\d+),(-?\d+)\)/.exec(block.trim());
      if (!m) continue;
      const b = /button (\d+)/.exec(block);
      events.push({ type: m[1], x: Number(m[2]), y: Number(m[3]), button: b ? Number(b[1]) : undefined });
    }
    return events;
  };
}

export function pointerAt(display: string): { x: number; y: number } {
  const r = spawnSync('xdotool', ['getmouselocation', '--shell'], { env: { ...process.env, DISPLAY: display }, encoding: 'utf8' });
  const x = /X=(\d+)/.exec(r.stdout);
  const y = /Y=(\d+)/.exec(r.stdout);
  return { x: Number(x?.[1]), y: Number(y?.[1]) };
}

export function readText(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

/** Pixels that differ by more than `tolerance` in any channel. */
export function diffPixels(a: Buffer, b: Buffer, tolerance = 0): number {
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (Math.abs(a[i] - b[i]) > tolerance || Math.abs(a[i + 1] - b[i + 1]) > tolerance || Math.abs(a[i + 2] - b[i + 2]) > tolerance) n++;
  }
  return n;
}
