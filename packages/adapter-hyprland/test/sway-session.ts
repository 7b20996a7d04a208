/**
 * A real headless sway on this host for the integration suites: WLR_BACKENDS=headless with the
 * pixman renderer (no GPU), no input devices, as uid 65534 (sway refuses to run as root) in a
 * private XDG_RUNTIME_DIR. Test clients (foot) and the host channel run as that user too, as in a
 * guest where the desktop user owns the session. stop() ends exactly the processes it started, by process group.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { until } from '@vmhub/test-kit';

export const NOBODY = 65534;

export interface SwaySession {
  dir: string;
  home: string;
  runtimeDir: string;
  /** XDG_RUNTIME_DIR, WAYLAND_DISPLAY, SWAYSOCK for host-side commands. */
  env: Record<string, string>;
  swaymsg(...args: string[]): string;
  /** Start a client (argv, never a shell) in its own process group; stopped by stop(). */
  spawn(argv: string[], extraEnv?: Record<string, string>): ChildProcess;
  stop(): Promise<void>;
}

export async function startSway(options: { outputs?: number } = {}): Promise<SwaySession> {
  const outputs = options.outputs ?? 1;
  const dir = mkdtempSync('/tmp/vmhub-test-hyprland-');
  chmodSync(dir, 0o755);
  const runtimeDir = join(dir, 'rt');
  const home = join(dir, 'home');
  mkdirSync(runtimeDir, { mode: 0o700 });
  mkdirSync(home, { mode: 0o777 });
  chmodSync(home, 0o777);
  chownSync(runtimeDir, NOBODY, NOBODY);
  chownSync(home, NOBODY, NOBODY);
  const config = join(dir, 'sway.conf');
  const lines = ['default_border none', 'default_floating_border none', 'focus_follows_mouse no', 'seat seat0 hide_cursor 0'];
  for (let i = 1; i <= outputs; i++) lines.push(`output HEADLESS-${i} mode 1280x800 position ${(i - 1) * 1280} 0 scale 1`);
  writeFileSync(config, `${lines.join('\n')}\n`);
  chmodSync(config, 0o644);
  const swayEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_RUNTIME_DIR: runtimeDir,
    WLR_BACKENDS: 'headless',
    WLR_RENDERER: 'pixman',
    WLR_LIBINPUT_NO_DEVICES: '1',
    WLR_HEADLESS_OUTPUTS: String(outputs),
    SHELL: '/bin/sh',
  };
  const procs: ChildProcess[] = [];
  const sway = spawn('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', 'sway', '-c', config], {
    env: swayEnv, cwd: home, detached: true, stdio: ['ignore', 'ignore', 'ignore'],
  });
  procs.push(sway);
  const sock = await until(() => readdirSync(runtimeDir).find((f) => f.startsWith('sway-ipc.') && f.endsWith('.sock')), 'sway IPC socket', 30_000);
  await until(() => existsSync(join(runtimeDir, 'wayland-1')), 'wayland socket', 30_000);
  // SHELL: a foot started without it runs the user's login shell, nobody's /usr/sbin/nologin, and
  // closes at once (CI starts the suite with no SHELL in its environment).
  const env = { XDG_RUNTIME_DIR: runtimeDir, WAYLAND_DISPLAY: 'wayland-1', SWAYSOCK: join(runtimeDir, sock), LC_ALL: 'C.UTF-8', HOME: home, SHELL: '/bin/sh' };
  const swaymsg = (...args: string[]) => execFileSync('swaymsg', args, { env: { ...process.env, ...env }, timeout: 10_000 }).toString('utf8');
  await until(() => { try { return swaymsg('-t', 'get_version').includes('1.'); } catch { return undefined; } }, 'sway answering', 30_000);
  return {
    dir, home, runtimeDir, env, swaymsg,
    spawn(argv, extraEnv = {}) {
      const full = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...argv];
      const child = spawn(full[0]!, full.slice(1), { env: { ...process.env, ...env, ...extraEnv }, cwd: home, detached: true, stdio: ['ignore', 'ignore', 'ignore'] });
      procs.push(child);
      return child;
    },
    async stop() {
      for (const p of procs.reverse()) {
        if (p.pid !== undefined && p.exitCode === null) { try { process.kill(-p.pid, 'SIGTERM'); } catch { /* gone */ } }
      }
      await sleep(200);
      for (const p of procs) {
        if (p.pid !== undefined && p.exitCode === null) { try { process.kill(-p.pid, 'SIGKILL'); } catch { /* gone */ } }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
