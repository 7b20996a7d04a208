/**
 * The recipe of the offline test goldens `tiny-console` and `tiny-console-agent`: what goes into
 * the initramfs, and the hash over every input that names a build. Built from what Debian already
 * has on the host: the distribution kernel (/boot/vmlinuz-*), its USB/HID/virtio modules, and
 * busybox-static. The init prints a ready marker on the serial port and runs an interactive shell
 * on the VGA console (tty1), so keys sent through QMP reach the shell and the shell's effects can
 * be checked from the host through serial.log (`echo X > /dev/ttyS0`).
 *
 * The `tiny-console-agent` variant adds the host's qemu-ga (with the shared libraries ldd names)
 * and starts it on the virtio-serial port, so the guest-agent GuestChannel can be tested too, and
 * OpenSSH's sshd with a minimal cloud-init NoCloud reader (tiny-console-ssh.ts): a lease whose VM
 * has a `cidata` seed gets its per-lease key installed and sshd started at boot; the image itself
 * holds no host key and no authorized key.
 * `/sbin/hwclock` (busybox) is there for qemu-ga's guest-set-time, which needs exactly that path,
 * and `/sbin/shutdown` (a script) for its guest-shutdown, which a restart asks for.
 * Both have a desktop user besides root (`user`, uid 1000, home /home/user) and a root-only /root
 * and /etc/shadow, so a channel acting as a user (template `user`) meets real Unix rights.
 * qemu-golden.ts builds, reuses and reports on what this recipe describes.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { execa } from 'execa';
import { VmhubError } from '@vmhub/core';
import type { CpioEntry } from './cpio.ts';
import { defaultGoldenDir } from './paths.ts';
import type { GoldenName } from './tiny-console.ts';
import { sshBinaries, sshGuestFiles } from './tiny-console-ssh.ts';

const SOURCE = 'provider-qemu';
/** Bump when the recipe below changes in a way the input hash cannot see. */
export const RECIPE_VERSION = '5';

/**
 * Modules (and, through modules.dep, their dependencies) the guest needs: USB keyboard/tablet,
 * evdev (so tests can watch the tablet), virtio-serial, virtio-net (forwarded guest ports),
 * virtio-blk and ISO 9660 (the NoCloud seed disk), ext4 and the crc32c it loads by name (a
 * workspace disk the init mounts).
 */
const MODULES = ['xhci-pci', 'usbhid', 'hid-generic', 'evdev', 'virtio_pci', 'virtio_console', 'virtio_net', 'virtio_blk', 'isofs', 'crc32c_generic', 'ext4'];

// The marker is assembled at run time ("$M") so the string never sits in a file the kernel or a
// shell could print before the shell is actually listening on tty1.
const INIT = `#!/bin/sh
export PATH=/bin:/sbin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
printf 'root:x:0:0:root:/root:/bin/sh\\nuser:x:1000:1000:desktop user:/home/user:/bin/sh\\n' > /etc/passwd
printf 'root:x:0:\\nuser:x:1000:\\n' > /etc/group
printf 'root:*:19000:0:99999:7:::\\nuser:*:19000:0:99999:7:::\\n' > /etc/shadow
chmod 600 /etc/shadow; chmod 700 /root; chmod 1777 /tmp
mkdir -p /home/user && chown 1000:1000 /home/user
for m in $(cat /etc/modules.order); do insmod /lib/modules/$m 2>/dev/null; done
ws=$(sed -n 's/.*vmhub_ws=\\([^ ]*\\).*/\\1/p' /proc/cmdline)
if [ -n "$ws" ]; then
  mkdir -p "$ws"; echo "$ws" > /etc/vmhub-ws
  for b in /sys/block/vd*; do /sbin/vmhub-ws-mount \${b##*/}; done
  grep -q " $ws ext4 " /proc/mounts || mdev -d
fi
i=0
while [ $i -lt 150 ]; do
  grep -q 'USB Keyboard' /proc/bus/input/devices 2>/dev/null && break
  sleep 0.1; i=$((i+1))
done
for d in /sys/class/input/event*; do
  grep -q 'Tablet' $d/device/name 2>/dev/null && ln -sf /dev/input/$(basename $d) /dev/tablet
done
if [ -x /bin/qemu-ga ]; then
  mkdir -p /var/run
  for p in /sys/class/virtio-ports/*; do
    [ "$(cat $p/name 2>/dev/null)" = org.qemu.guest_agent.0 ] && qemu-ga -m virtio-serial -p /dev/$(basename $p) -t /tmp &
  done
fi
hostname tiny-console
[ -x /sbin/vmhub-nocloud ] && /sbin/vmhub-nocloud > /dev/ttyS0 2>&1
echo "tiny-console init: usb keyboard wait $i ticks" > /dev/ttyS0
export ENV=/etc/shrc HOME=/root TERM=linux
while true; do
  printf '\\033c' > /dev/tty1
  echo 'vmhub tiny-console: type here' > /dev/tty1
  setsid sh -c 'exec sh -i </dev/tty1 >/dev/tty1 2>&1'
  sleep 1
done
`;

/**
 * /sbin/vmhub-ws-mount <vdX>: mounts the workspace disk (virtio serial vmhub-ws) at the path
 * init wrote to /etc/vmhub-ws; on a fresh filesystem its root gets the mount point's owner. Init
 * runs it for the disks there at boot; when none is the workspace, `mdev -d` (MDEV_CONF) runs
 * it for a disk hot-plugged later (a lease resumed from a saved state: qemu-workspace.ts). The
 * line it prints on serial is what the host waits for.
 */
const WS_MOUNT = `#!/bin/sh
d=\${1:-$MDEV}; ws=$(cat /etc/vmhub-ws 2>/dev/null)
[ -n "$ws" ] && [ "$(cat /sys/block/$d/serial 2>/dev/null)" = vmhub-ws ] || exit 0
grep -q " $ws ext4 " /proc/mounts && exit 0
o=$(stat -c %u:%g "$ws")
mount -t ext4 /dev/$d "$ws" && [ -z "$(ls -A "$ws" | grep -v lost+found)" ] && chown "$o" "$ws"
grep -q " $ws ext4 " /proc/mounts && echo "tiny-console init: workspace mounted at $ws" > /dev/ttyS0
`;

/** busybox mdev's table: a virtio disk that appears runs the workspace mount (devtmpfs made the node). */
const MDEV_CONF = `vd[a-z]+ 0:0 660 @/sbin/vmhub-ws-mount
`;

const SHRC = `PS1='tiny# '
M=VMHUB-TINY-CONSOLE
echo "$M-READY" > /dev/ttyS0
`;

/**
 * The agent variant's /sbin/shutdown: what qemu-ga's guest-shutdown runs (on Linux `shutdown -h
 * -r|-P|-H +0 <message>`; qemu-restart.ts asks for a reboot with it). busybox has no shutdown, and
 * its reboot would signal an init this golden does not have (init is a shell script): `-f` syncs
 * the disks and calls reboot(2) itself.
 */
const SHUTDOWN = `#!/bin/sh
for a in "$@"; do
  case "$a" in
    -r) exec /bin/busybox reboot -f ;;
    -H) exec /bin/busybox halt -f ;;
  esac
done
exec /bin/busybox poweroff -f
`;

/** Where the inputs come from; every field has a default read from the host. */
export interface RecipeOptions {
  /** Where builds go. Default `$XDG_CACHE_HOME/vmhub/golden` or `~/.cache/vmhub/golden`. */
  dir?: string;
  /** Kernel image. Default: the newest /boot/vmlinuz-*. */
  kernel?: string;
  /** busybox-static binary. Default /bin/busybox. */
  busybox?: string;
  /** qemu-ga binary for the agent variant. Default /usr/sbin/qemu-ga. */
  qemuGa?: string;
}

export interface Inputs {
  name: GoldenName;
  root: string;
  /** Extra guest files (qemu-ga, sshd and their libraries) at their guest paths. */
  extra: { guest: string; host: string; mode: number }[];
  /** Extra guest files written from the recipe itself (the NoCloud reader, sshd_config). */
  data: { guest: string; data: string; mode: number }[];
  kernelPath: string;
  kernelVersion: string;
  busyboxPath: string;
  modules: { rel: string; abs: string }[];
  hash: string;
}

async function newestKernel(): Promise<string> {
  const names = existsSync('/boot') ? (await readdir('/boot')).filter((n) => n.startsWith('vmlinuz-')) : [];
  if (names.length === 0) {
    throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] no kernel in /boot: install it with \`apt-get install -y linux-image-amd64\``, { source: SOURCE });
  }
  names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return join('/boot', names[names.length - 1]!);
}

function parseModulesDep(text: string): Map<string, string[]> {
  const deps = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    deps.set(line.slice(0, colon), line.slice(colon + 1).trim().split(/\s+/).filter(Boolean));
  }
  return deps;
}

/** Module files in load order (dependencies first). */
function moduleOrder(deps: Map<string, string[]>, wanted: string[]): string[] {
  const byName = new Map<string, string>();
  for (const rel of deps.keys()) byName.set(basename(rel).replace(/\.ko(\.\w+)?$/, '').replaceAll('_', '-'), rel);
  const order: string[] = [];
  const visit = (rel: string): void => {
    if (order.includes(rel)) return;
    // modules.dep lists the full transitive closure, deepest last: load in reverse.
    for (const d of [...(deps.get(rel) ?? [])].reverse()) visit(d);
    order.push(rel);
  };
  for (const name of wanted) {
    const rel = byName.get(name.replaceAll('_', '-'));
    if (rel) visit(rel); // built into this kernel when absent from modules.dep
  }
  return order;
}

/** The binaries and every shared library ldd names for them (each once, sorted), at their host paths. */
async function withLibraries(binaries: { guest: string; host: string; mode: number }[]): Promise<{ guest: string; host: string; mode: number }[]> {
  const libs = new Set<string>();
  for (const b of binaries) {
    const { stdout } = await execa('ldd', [b.host], { timeout: 10_000 });
    for (const line of stdout.split('\n')) {
      const m = /=>\s+(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
      if (m) libs.add(m[1]!);
    }
  }
  return [...binaries, ...[...libs].sort().map((l) => ({ guest: l.slice(1), host: l, mode: 0o755 }))];
}

async function agentFiles(qemuGa: string): Promise<{ guest: string; host: string; mode: number }[]> {
  if (!existsSync(qemuGa)) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] ${qemuGa} not found: \`apt-get install -y qemu-guest-agent\` (the tiny-console-agent golden copies it into the initramfs)`, { source: SOURCE });
  return withLibraries([{ guest: 'bin/qemu-ga', host: qemuGa, mode: 0o755 }, ...sshBinaries()]);
}

export async function resolveInputs(name: GoldenName, options: RecipeOptions): Promise<Inputs> {
  const root = options.dir ?? defaultGoldenDir();
  const kernelPath = options.kernel ?? (await newestKernel());
  const kernelVersion = basename(kernelPath).replace(/^vmlinuz-/, '');
  const busyboxPath = options.busybox ?? '/bin/busybox';
  if (!existsSync(kernelPath)) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] kernel ${kernelPath} not found: install linux-image-amd64 or pass kernel`, { source: SOURCE });
  if (!existsSync(busyboxPath)) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] ${busyboxPath} not found: \`apt-get install -y busybox-static\``, { source: SOURCE });
  const modDir = join('/lib/modules', kernelVersion);
  let modules: { rel: string; abs: string }[] = [];
  if (existsSync(join(modDir, 'modules.dep'))) {
    const deps = parseModulesDep(await readFile(join(modDir, 'modules.dep'), 'utf8'));
    modules = moduleOrder(deps, MODULES).map((rel) => ({ rel, abs: join(modDir, rel) }));
  }
  const agent = name === 'tiny-console-agent';
  const extra = agent ? await agentFiles(options.qemuGa ?? '/usr/sbin/qemu-ga') : [];
  const data = agent ? [...sshGuestFiles(), { guest: 'sbin/shutdown', data: SHUTDOWN, mode: 0o755 }] : [];
  const h = createHash('sha256');
  h.update(`recipe ${RECIPE_VERSION} ${name}\n${INIT}\n${SHRC}\n${WS_MOUNT}\n${MDEV_CONF}\n`);
  for (const d of data) h.update(`${d.guest} ${d.mode.toString(8)}\n${d.data}\n`);
  for (const p of [kernelPath, busyboxPath, ...modules.map((m) => m.abs), ...extra.map((e) => e.host)]) {
    h.update(`${p}\n`);
    h.update(await readFile(p));
  }
  return { name, root, extra, data, kernelPath, kernelVersion, busyboxPath, modules, hash: h.digest('hex').slice(0, 16) };
}

async function moduleData(abs: string): Promise<Buffer> {
  if (abs.endsWith('.ko')) return readFile(abs);
  throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] compressed kernel module ${abs} is not supported by the tiny-console builder`, { source: SOURCE });
}

/** The initramfs's files, and the kernel modules in the order init loads them. */
export async function initramfsEntries(inputs: Inputs): Promise<{ entries: CpioEntry[]; modules: string[] }> {
  const entries: CpioEntry[] = [];
  for (const d of ['bin', 'sbin', 'dev', 'proc', 'sys', 'etc', 'root', 'tmp', 'lib', 'lib/modules']) entries.push({ kind: 'dir', path: d });
  entries.push({ kind: 'chardev', path: 'dev/console', major: 5, minor: 1 });
  entries.push({ kind: 'file', path: 'bin/busybox', data: await readFile(inputs.busyboxPath), mode: 0o755 });
  entries.push({ kind: 'symlink', path: 'bin/sh', target: 'busybox' });
  // qemu-ga's guest-set-time runs /sbin/hwclock (and refuses the command when it is missing):
  // a restored VM's clock is set through it (qemu-ready.ts).
  entries.push({ kind: 'symlink', path: 'sbin/hwclock', target: '../bin/busybox' });
  entries.push({ kind: 'file', path: 'init', data: Buffer.from(INIT), mode: 0o755 });
  entries.push({ kind: 'file', path: 'etc/shrc', data: Buffer.from(SHRC) });
  entries.push({ kind: 'file', path: 'sbin/vmhub-ws-mount', data: Buffer.from(WS_MOUNT), mode: 0o755 });
  entries.push({ kind: 'file', path: 'etc/mdev.conf', data: Buffer.from(MDEV_CONF) });
  const order: string[] = [];
  for (const m of inputs.modules) {
    const name = basename(m.rel);
    entries.push({ kind: 'file', path: `lib/modules/${name}`, data: await moduleData(m.abs) });
    order.push(name);
  }
  entries.push({ kind: 'file', path: 'etc/modules.order', data: Buffer.from(order.join('\n') + '\n') });
  const dirs = new Set<string>(entries.filter((e) => e.kind === 'dir').map((e) => e.path));
  const parents = (guest: string): void => {
    const parts = guest.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const d = parts.slice(0, i).join('/');
      if (!dirs.has(d)) { dirs.add(d); entries.push({ kind: 'dir', path: d }); }
    }
  };
  for (const e of inputs.extra) {
    parents(e.guest);
    entries.push({ kind: 'file', path: e.guest, data: await readFile(e.host), mode: e.mode });
  }
  for (const d of inputs.data) {
    parents(d.guest);
    entries.push({ kind: 'file', path: d.guest, data: Buffer.from(d.data), mode: d.mode });
  }
  return { entries, modules: order };
}
