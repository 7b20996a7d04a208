/**
 * The `tiny-console` test golden, built offline from what Debian already has on the host:
 * the distribution kernel (/boot/vmlinuz-*), its USB/HID/virtio modules, and busybox-static.
 * The initramfs's init prints a ready marker on the serial port and runs an interactive shell on
 * the VGA console (tty1), so keys sent through QMP reach the shell and the shell's effects can be
 * checked from the host through serial.log (`echo X > /dev/ttyS0`).
 *
 * The `tiny-console-agent` variant adds the host's qemu-ga (with the shared libraries ldd names)
 * and starts it on the virtio-serial port, so the guest-agent GuestChannel can be tested too.
 *
 * Output: `<dir>/<name>-<hash>/{vmlinuz,initrd.img,manifest.json}` plus a `<name>` symlink to
 * the newest build. The hash covers every input, so a rebuild happens only when the
 * kernel, busybox, the modules or this recipe change.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { VmhubError } from '@vmhub/core';
import { writeCpio, type CpioEntry } from './cpio.ts';
import { defaultGoldenDir } from './paths.ts';
import { buildHint, GOLDEN_NAMES, TINY_CONSOLE_READY_MARKER, type GoldenName } from './tiny-console.ts';

const SOURCE = 'provider-qemu';
/** Bump when the recipe below changes in a way the input hash cannot see. */
const RECIPE_VERSION = '1';

/** Modules (and, through modules.dep, their dependencies) the guest needs: USB keyboard/tablet, evdev (so tests can watch the tablet), virtio-serial. */
const MODULES = ['xhci-pci', 'usbhid', 'hid-generic', 'evdev', 'virtio_pci', 'virtio_console'];

// The marker is assembled at run time ("$M") so the string never sits in a file the kernel or a
// shell could print before the shell is actually listening on tty1.
const INIT = `#!/bin/sh
export PATH=/bin:/sbin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
for m in $(cat /etc/modules.order); do insmod /lib/modules/$m 2>/dev/null; done
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
echo "tiny-console init: usb keyboard wait $i ticks" > /dev/ttyS0
export ENV=/etc/shrc HOME=/root TERM=linux
while true; do
  printf '\\033c' > /dev/tty1
  echo 'vmhub tiny-console: type here' > /dev/tty1
  setsid sh -c 'exec sh -i </dev/tty1 >/dev/tty1 2>&1'
  sleep 1
done
`;

const SHRC = `PS1='tiny# '
M=VMHUB-TINY-CONSOLE
echo "$M-READY" > /dev/ttyS0
`;

export interface GoldenBuildOptions {
  /** Where builds go. Default `$XDG_CACHE_HOME/vmhub/golden` or `~/.cache/vmhub/golden`. */
  dir?: string;
  /** Kernel image. Default: the newest /boot/vmlinuz-*. */
  kernel?: string;
  /** busybox-static binary. Default /bin/busybox. */
  busybox?: string;
  /** qemu-ga binary for the agent variant. Default /usr/sbin/qemu-ga. */
  qemuGa?: string;
  /** Rebuild even when the output for these inputs exists. */
  force?: boolean;
}

export interface GoldenStatus {
  name: GoldenName;
  /** True when the build for the current inputs exists. */
  built: boolean;
  /** Content-hashed output directory (exists when built). */
  dir: string;
  /** Stable paths through the `tiny-console` symlink (what the default template uses). */
  kernel: string;
  initrd: string;
  hash: string;
  /** Why it is not built, and how to build it. */
  reason?: string;
}

interface Inputs {
  name: GoldenName;
  root: string;
  /** Extra guest files (qemu-ga and its libraries) at their guest paths. */
  extra: { guest: string; host: string; mode: number }[];
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

async function agentFiles(qemuGa: string): Promise<{ guest: string; host: string; mode: number }[]> {
  if (!existsSync(qemuGa)) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] ${qemuGa} not found: \`apt-get install -y qemu-guest-agent\` (the tiny-console-agent golden copies it into the initramfs)`, { source: SOURCE });
  const { stdout } = await execa('ldd', [qemuGa], { timeout: 10_000 });
  const libs = new Set<string>();
  for (const line of stdout.split('\n')) {
    const m = /=>\s+(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m) libs.add(m[1]!);
  }
  return [{ guest: 'bin/qemu-ga', host: qemuGa, mode: 0o755 }, ...[...libs].sort().map((l) => ({ guest: l.slice(1), host: l, mode: 0o755 }))];
}

async function resolveInputs(name: GoldenName, options: GoldenBuildOptions): Promise<Inputs> {
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
  const extra = name === 'tiny-console-agent' ? await agentFiles(options.qemuGa ?? '/usr/sbin/qemu-ga') : [];
  const h = createHash('sha256');
  h.update(`recipe ${RECIPE_VERSION} ${name}\n${INIT}\n${SHRC}\n`);
  for (const p of [kernelPath, busyboxPath, ...modules.map((m) => m.abs), ...extra.map((e) => e.host)]) {
    h.update(`${p}\n`);
    h.update(await readFile(p));
  }
  return { name, root, extra, kernelPath, kernelVersion, busyboxPath, modules, hash: h.digest('hex').slice(0, 16) };
}

function statusFor(inputs: Inputs, built: boolean): GoldenStatus {
  const dir = join(inputs.root, `${inputs.name}-${inputs.hash}`);
  const current = join(inputs.root, inputs.name);
  return {
    name: inputs.name,
    built,
    dir,
    kernel: join(current, 'vmlinuz'),
    initrd: join(current, 'initrd.img'),
    hash: inputs.hash,
    ...(built ? {} : { reason: `${inputs.name} golden for these inputs is not built: ${buildHint(inputs.name)}` }),
  };
}

/** Is the golden for the host's current kernel/busybox (/qemu-ga) built? Never builds. */
export async function goldenStatus(options: GoldenBuildOptions & { name?: GoldenName } = {}): Promise<GoldenStatus> {
  const inputs = await resolveInputs(options.name ?? 'tiny-console', options);
  return statusFor(inputs, existsSync(join(inputs.root, `${inputs.name}-${inputs.hash}`, 'manifest.json')));
}

async function moduleData(abs: string): Promise<Buffer> {
  if (abs.endsWith('.ko')) return readFile(abs);
  throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] compressed kernel module ${abs} is not supported by the tiny-console builder`, { source: SOURCE });
}

/** Build (or reuse) the tiny-console golden; returns where it is. */
export async function buildTinyConsoleGolden(options: GoldenBuildOptions = {}): Promise<GoldenStatus> {
  return buildGolden('tiny-console', options);
}

/** Build (or reuse) a named test golden: `tiny-console` or `tiny-console-agent`. */
export async function buildGolden(name: GoldenName, options: GoldenBuildOptions = {}): Promise<GoldenStatus> {
  if (!GOLDEN_NAMES.includes(name)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] unknown golden "${name}"; known: ${GOLDEN_NAMES.join(', ')}`, { source: SOURCE });
  const inputs = await resolveInputs(name, options);
  const status = statusFor(inputs, true);
  if (!options.force && existsSync(join(status.dir, 'manifest.json'))) {
    await pointCurrent(inputs.root, status.dir, name);
    return status;
  }
  const entries: CpioEntry[] = [];
  for (const d of ['bin', 'sbin', 'dev', 'proc', 'sys', 'etc', 'root', 'tmp', 'lib', 'lib/modules']) entries.push({ kind: 'dir', path: d });
  entries.push({ kind: 'chardev', path: 'dev/console', major: 5, minor: 1 });
  entries.push({ kind: 'file', path: 'bin/busybox', data: await readFile(inputs.busyboxPath), mode: 0o755 });
  entries.push({ kind: 'symlink', path: 'bin/sh', target: 'busybox' });
  entries.push({ kind: 'file', path: 'init', data: Buffer.from(INIT), mode: 0o755 });
  entries.push({ kind: 'file', path: 'etc/shrc', data: Buffer.from(SHRC) });
  const order: string[] = [];
  for (const m of inputs.modules) {
    const name = basename(m.rel);
    entries.push({ kind: 'file', path: `lib/modules/${name}`, data: await moduleData(m.abs) });
    order.push(name);
  }
  entries.push({ kind: 'file', path: 'etc/modules.order', data: Buffer.from(order.join('\n') + '\n') });
  const dirs = new Set<string>(entries.filter((e) => e.kind === 'dir').map((e) => e.path));
  for (const e of inputs.extra) {
    const parts = e.guest.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const d = parts.slice(0, i).join('/');
      if (!dirs.has(d)) { dirs.add(d); entries.push({ kind: 'dir', path: d }); }
    }
    entries.push({ kind: 'file', path: e.guest, data: await readFile(e.host), mode: e.mode });
  }

  const tmp = `${status.dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  await writeFile(join(tmp, 'initrd.img'), gzipSync(writeCpio(entries), { level: 6 }));
  await copyFile(inputs.kernelPath, join(tmp, 'vmlinuz'));
  const manifest = {
    name: inputs.name, hash: inputs.hash, recipe: RECIPE_VERSION, guest_agent: inputs.extra.length > 0, kernel: inputs.kernelPath,
    kernel_version: inputs.kernelVersion, busybox: inputs.busyboxPath, modules: order,
    ready_marker: TINY_CONSOLE_READY_MARKER, built_at: new Date().toISOString(),
  };
  await writeFile(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  await rm(status.dir, { recursive: true, force: true });
  await rename(tmp, status.dir);
  await pointCurrent(inputs.root, status.dir, name);
  // QEMU reads kernel and initrd at start, so running leases do not need older builds.
  const old = new RegExp(`^${name}-[0-9a-f]{16}$`);
  for (const entry of await readdir(inputs.root)) {
    if (old.test(entry) && join(inputs.root, entry) !== status.dir) await rm(join(inputs.root, entry), { recursive: true, force: true });
  }
  return status;
}

async function pointCurrent(root: string, dir: string, name: GoldenName): Promise<void> {
  const link = join(root, name);
  const tmp = `${link}.tmp-${process.pid}`;
  await rm(tmp, { force: true });
  await symlink(basename(dir), tmp);
  await rename(tmp, link); // atomic swap: a running lease keeps its open files
}
