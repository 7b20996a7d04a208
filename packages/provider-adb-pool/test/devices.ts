/**
 * Test fixture: pool devices made of the REAL adbd (Debian bookworm-backports `adbd`, AOSP 34),
 * each in a private mount namespace and chroot so it has its own Android file system — /system
 * with the Android stand-in's tools (standins/goldens/android-standin), /data,
 * /sdcard — while /usr and /etc are the host's (read through bind mounts). One Xvfb display is
 * shared by the devices (the stand-in's apps are Tk windows), and a private adb server
 * (`adb -P <port>`) keeps the default one on 5037 untouched. Everything is started here and
 * killed after. Needs root (unshare, chroot, mounts; adbd itself).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { accepts, freePort, startAdbServer } from '@vmhub/test-kit';

export const STANDIN = fileURLToPath(new URL('../../../standins/goldens/android-standin/', import.meta.url));
const ADB = '/usr/bin/adb';

/** Why these tests cannot run here, or undefined when they can. */
export function devicesMissing(): string | undefined {
  for (const bin of ['/usr/sbin/adbd', ADB, '/usr/bin/Xvfb', '/usr/bin/xdotool', '/usr/bin/unshare', '/usr/bin/python3']) {
    if (!existsSync(bin)) return `${bin} missing (apt-get install -t bookworm-backports adbd adb; apt-get install xvfb xdotool xclip python3-tk)`;
  }
  if (process.getuid?.() !== 0) return 'adbd, unshare and chroot need root';
  try {
    execFileSync('/usr/bin/python3', ['-c', 'import tkinter'], { stdio: 'ignore' });
  } catch {
    return 'python3-tk missing (apt-get install python3-tk)';
  }
  return undefined;
}

export interface TestDevice {
  name: string;
  port: number;
  address: string;
  /** The device's root as the host sees it (its /data, /system, …). */
  root: string;
  /** Stop adbd (the device "goes away"); start() brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export interface Lab {
  devices: TestDevice[];
  adbPort: number;
  dir: string;
  /** Run a command on a device through the real adb client (as a user would check it). */
  adb(device: TestDevice, ...args: string[]): string;
  close(): Promise<void>;
}

// Inside the device's namespace: bind the host's /usr and /etc read-only, its own /tmp, the
// shared X socket and the stand-in tools; then chroot and run adbd with /system/bin first on PATH.
const BOOT = String.raw`set -eu
r="$1"; lib="$2"; xdir="$3"; port="$4"
mount --make-rprivate /
for d in usr etc; do mount --rbind "/$d" "$r/$d"; mount -o remount,bind,ro "$r/$d" 2>/dev/null || true; done
mount --rbind /dev "$r/dev"
mount -t proc proc "$r/proc"
mount -t tmpfs tmpfs "$r/tmp"
mkdir -p "$r/tmp/.X11-unix"
mount --bind "$xdir" "$r/tmp/.X11-unix"
mount --bind "$lib" "$r/system/lib/vmhub-standin"
exec chroot "$r" /usr/bin/env -i PATH=/system/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/data/local/tmp \
  DISPLAY="$DISPLAY" ADBD_PORT="$port" LANG=C.UTF-8 /bin/sh -c 'cd / && exec /usr/sbin/adbd'
`;

function makeRoot(root: string, serial: string): void {
  for (const d of ['usr', 'etc', 'dev', 'proc', 'tmp', 'system/lib/vmhub-standin']) mkdirSync(join(root, d), { recursive: true });
  for (const l of ['bin', 'lib', 'lib64', 'sbin']) symlinkSync(`usr/${l}`, join(root, l));
  // The golden's own setup lays out /system and /data; the tools are linked from their in-device path.
  execFileSync('/bin/sh', [join(STANDIN, 'setup.sh')], {
    env: { ...process.env, VMHUB_STANDIN_ROOT: root, VMHUB_STANDIN_LIB: '/system/lib/vmhub-standin' },
    stdio: 'inherit',
  });
  writeFileSync(join(root, 'data/property/vmhub.prop'), `ro.serialno=${serial}\nsys.boot_completed=1\n`);
}

export async function startLab(count: number): Promise<Lab> {
  // Under /var/tmp: Xvfb gets a private /tmp, which would hide a lab directory in /tmp.
  const dir = mkdtempSync('/var/tmp/vmhub-test-adbpool-');
  const xdir = join(dir, 'X11');
  mkdirSync(xdir, { mode: 0o1777 });
  const display = 90 + Math.floor(Math.random() * 800);
  // Xvfb (in a private /tmp: its lock file goes too) puts its socket in /tmp/.X11-unix; the
  // devices see the same directory at that path.
  const xvfb = spawn('unshare', ['--mount', '/bin/sh', '-c', `mount --make-rprivate / && mount -t tmpfs tmpfs /tmp && mkdir /tmp/.X11-unix && mount --bind "${xdir}" /tmp/.X11-unix && exec Xvfb :${display} -screen 0 1080x2400x24 -nolisten tcp -ac -noreset`], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !existsSync(join(xdir, `X${display}`)); i++) await new Promise((r) => setTimeout(r, 50));
  const adbServer = await startAdbServer();
  const adbPort = adbServer.port;

  const procs = new Map<string, ChildProcess>();
  const devices: TestDevice[] = [];
  for (let i = 0; i < count; i++) {
    const name = `dev${i}`;
    const root = join(dir, name);
    makeRoot(root, `standin-test-${name}-${process.pid}`);
    const port = await freePort();
    const device: TestDevice = {
      name, port, address: `127.0.0.1:${port}`, root,
      async start() {
        const p = spawn('unshare', ['--mount', '/bin/sh', '-c', BOOT, 'boot', root, join(STANDIN, 'standin'), xdir, String(port)], {
          env: { ...process.env, DISPLAY: `:${display}` }, stdio: 'ignore',
        });
        procs.set(name, p);
        for (let t = 0; t < 200 && !(await accepts(port)); t++) await new Promise((r) => setTimeout(r, 50));
      },
      async stop() {
        const p = procs.get(name);
        if (!p || p.exitCode !== null || p.signalCode !== null) return;
        const gone = new Promise((r) => p.once('exit', r));
        p.kill('SIGKILL'); // adbd itself (the sh exec'd into chroot → adbd)
        await gone;
      },
    };
    await device.start();
    devices.push(device);
  }
  return {
    devices, adbPort, dir,
    adb(device, ...args) {
      execFileSync(ADB, ['-P', String(adbPort), 'connect', device.address], { stdio: 'ignore' });
      return execFileSync(ADB, ['-P', String(adbPort), '-s', device.address, ...args], { encoding: 'utf8' });
    },
    async close() {
      for (const d of devices) await d.stop();
      // The stand-in apps the devices started live on in their namespaces: find them by their root.
      killUnder(dir);
      adbServer.stop();
      xvfb.kill('SIGTERM');
      // The mounts lived only in the devices' namespaces: here the root holds empty mount points
      // and relative symlinks, which rm never follows.
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Kill processes whose root (chroot) is under `dir`: what a device left running. */
function killUnder(dir: string): void {
  for (const pid of execFileSync('ps', ['-eo', 'pid='], { encoding: 'utf8' }).split('\n').map((l) => Number(l.trim())).filter(Boolean)) {
    try {
      const root = execFileSync('readlink', [`/proc/${pid}/root`], { encoding: 'utf8' }).trim();
      if (root.startsWith(dir)) process.kill(pid, 'SIGKILL');
    } catch { /* exited meanwhile */ }
  }
}

export function readDeviceFile(device: TestDevice, path: string): string | undefined {
  try {
    return readFileSync(join(device.root, path), 'utf8');
  } catch {
    return undefined;
  }
}
