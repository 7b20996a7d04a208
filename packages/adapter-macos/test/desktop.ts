/**
 * A live X desktop on this host for the tests: Xvfb (display number from -displayfd) + openbox,
 * x11vnc serving it on a loopback port (optionally with a VNC password), an xterm "sink" running
 * `cat > file` that has the focus (so typed text lands in the file), and a directory of stand-in
 * screencapture/cliclick/osascript/open wrappers bound to this display.
 * Needs the Debian packages xvfb, openbox, xterm, x11vnc, xdotool, wmctrl, x11-apps (xwd).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, until, waitPort } from '@vmhub/test-kit';

export const TOOLS_JS = new URL('../../../standins/goldens/macos-standin/tools/macos-tools.cjs', import.meta.url).pathname;

export interface Desktop {
  display: string;
  vncPort: number;
  dir: string;
  /** Stand-in tools bound to this display, for tool_path. */
  toolsDir: string;
  /** The sink xterm's file: what was typed into the focused window. */
  typedFile: string;
  typed(): string;
  x(argv: string[]): string;
  spawnX(argv: string[]): ChildProcess;
  stop(): Promise<void>;
}

/** `probe` with a throw read as "not yet" (wmctrl fails until the window manager is up), for until(). */
export const quietly = <T>(probe: () => T) => (): T | undefined => {
  try { return probe(); } catch { return undefined; }
};

export async function startDesktop(o: { vncPassword?: string; screen?: string } = {}): Promise<Desktop> {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-macos-desk-'));
  const procs: ChildProcess[] = [];
  const xvfb = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', o.screen ?? '1024x768x24', '-nolisten', 'tcp', '-ac', '-noreset'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  procs.push(xvfb);
  // SIGTERM first: x11vnc removes its SysV shared-memory segments only when it exits cleanly
  // (SIGKILLed, it leaked ~200 per run of this package). SIGKILL what is still there after 2 s.
  const stopAll = async (): Promise<void> => {
    const live = [...procs].reverse().filter((p) => p.exitCode === null && p.signalCode === null);
    const exited = live.map((p) => new Promise((r) => p.once('exit', r)));
    for (const p of live) p.kill('SIGTERM');
    await Promise.race([Promise.all(exited), new Promise((r) => setTimeout(r, 2000))]);
    for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  // A setup that fails part-way must not leave Xvfb and friends running: they would keep the
  // test process alive (the suite then hangs instead of failing).
  const abandon = async (err: unknown): Promise<never> => {
    await stopAll();
    throw err;
  };
  try {
    const num = await new Promise<string>((resolve, reject) => {
      let buf = '';
      (xvfb.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => { buf += d.toString(); if (buf.includes('\n')) resolve(buf.trim()); });
      xvfb.once('exit', (c) => reject(new Error(`Xvfb exited with ${c}`)));
      setTimeout(() => reject(new Error('Xvfb gave no display number in 10 s')), 10_000);
    });
    const display = `:${num}`;
    const env = { ...process.env, DISPLAY: display, LC_ALL: 'C.UTF-8', HOME: dir };
    const x = (argv: string[]) => execFileSync(argv[0]!, argv.slice(1), { env, timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
    const spawnX = (argv: string[]) => { const p = spawn(argv[0]!, argv.slice(1), { env, stdio: 'ignore', cwd: dir }); procs.push(p); return p; };
    spawnX(['openbox']);
    await until(quietly(() => (x(['wmctrl', '-m']).includes('Openbox') ? true : undefined)), 'openbox', 15_000);
    const vncPort = await freePort();
    const auth = o.vncPassword ? ['-passwd', o.vncPassword] : ['-nopw'];
    spawnX(['x11vnc', '-display', display, '-rfbport', String(vncPort), '-localhost', ...auth, '-forever', '-shared', '-noncache', '-quiet', '-norc']);
    await waitPort(vncPort, 15_000);
    const typedFile = join(dir, 'typed.txt');
    spawnX(['xterm', '-T', 'vmhub-sink', '-geometry', '120x40+0+0', '-e', 'sh', '-c', `stty -icanon -echo; exec cat > '${typedFile}'`]);
    await until(quietly(() => (existsSync(typedFile) && x(['wmctrl', '-l']).includes('vmhub-sink') ? true : undefined)), 'sink xterm', 15_000);
    x(['wmctrl', '-a', 'vmhub-sink']);
    const toolsDir = join(dir, 'tools');
    execFileSync('mkdir', ['-p', toolsDir]);
    for (const t of ['screencapture', 'cliclick', 'osascript', 'open']) {
      writeFileSync(join(toolsDir, t), `#!/bin/sh\nDISPLAY=${display} exec /usr/bin/node ${TOOLS_JS} ${t} "$@"\n`);
      chmodSync(join(toolsDir, t), 0o755);
    }
    return {
      display, vncPort, dir, toolsDir, typedFile, x, spawnX,
      typed: () => readFileSync(typedFile, 'utf8'),
      stop: stopAll,
    };
  } catch (err) {
    return await abandon(err);
  }
}
