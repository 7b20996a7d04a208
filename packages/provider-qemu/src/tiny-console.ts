/**
 * The `tiny-console` test golden, built offline from what Debian already has on the host:
 * the distribution kernel (/boot/vmlinuz-*), its USB/HID/virtio modules, and busybox-static.
 * The initramfs's init prints a ready marker on the serial port and runs an interactive shell on
 * the VGA console (tty1), so keys sent through QMP reach the shell and the shell's effects can be
 * checked from the host through serial.log (`echo X > /dev/ttyS0`).
 *
 * Output: `<dir>/tiny-console-<hash>/{vmlinuz,initrd.img,manifest.json}` plus a `tiny-console`
 * symlink to the newest build. The hash covers every input, so a rebuild happens only when the
 * kernel, busybox, the modules or this recipe change.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { VmhubError, type TemplateConfig } from '@vmhub/core';
import { writeCpio, type CpioEntry } from './cpio.ts';
import { defaultGoldenDir } from './paths.ts';

const SOURCE = 'provider-qemu';
/** Bump when the recipe below changes in a way the input hash cannot see. */
const RECIPE_VERSION = '1';
export const TINY_CONSOLE_READY_MARKER = 'VMHUB-TINY-CONSOLE-READY';
export const TINY_CONSOLE_BUILD_HINT = 'build it with `vmhub-server golden build tiny-console` or `node packages/provider-qemu/golden/build.mjs tiny-console` (needs Debian packages linux-image-amd64 and busybox-static)';

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
  /** Rebuild even when the output for these inputs exists. */
  force?: boolean;
}

export interface GoldenStatus {
  name: 'tiny-console';
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
  root: string;
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

async function resolveInputs(options: GoldenBuildOptions): Promise<Inputs> {
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
  const h = createHash('sha256');
  h.update(`recipe ${RECIPE_VERSION}\n${INIT}\n${SHRC}\n`);
  for (const p of [kernelPath, busyboxPath, ...modules.map((m) => m.abs)]) {
    h.update(`${basename(p)}\n`);
    h.update(await readFile(p));
  }
  return { root, kernelPath, kernelVersion, busyboxPath, modules, hash: h.digest('hex').slice(0, 16) };
}

function statusFor(inputs: Inputs, built: boolean): GoldenStatus {
  const dir = join(inputs.root, `tiny-console-${inputs.hash}`);
  const current = join(inputs.root, 'tiny-console');
  return {
    name: 'tiny-console',
    built,
    dir,
    kernel: join(current, 'vmlinuz'),
    initrd: join(current, 'initrd.img'),
    hash: inputs.hash,
    ...(built ? {} : { reason: `tiny-console golden for these inputs is not built: ${TINY_CONSOLE_BUILD_HINT}` }),
  };
}

/** Is the golden for the host's current kernel/busybox built? Never builds. */
export async function goldenStatus(options: GoldenBuildOptions = {}): Promise<GoldenStatus> {
  const inputs = await resolveInputs(options);
  const dir = join(inputs.root, `tiny-console-${inputs.hash}`);
  return statusFor(inputs, existsSync(join(dir, 'manifest.json')));
}

async function moduleData(abs: string): Promise<Buffer> {
  if (abs.endsWith('.ko')) return readFile(abs);
  throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] compressed kernel module ${abs} is not supported by the tiny-console builder`, { source: SOURCE });
}

/** Build (or reuse) the tiny-console golden; returns where it is. */
export async function buildTinyConsoleGolden(options: GoldenBuildOptions = {}): Promise<GoldenStatus> {
  const inputs = await resolveInputs(options);
  const status = statusFor(inputs, true);
  if (!options.force && existsSync(join(status.dir, 'manifest.json'))) {
    await pointCurrent(inputs.root, status.dir);
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

  const tmp = `${status.dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  await writeFile(join(tmp, 'initrd.img'), gzipSync(writeCpio(entries), { level: 6 }));
  await copyFile(inputs.kernelPath, join(tmp, 'vmlinuz'));
  const manifest = {
    name: 'tiny-console', hash: inputs.hash, recipe: RECIPE_VERSION, kernel: inputs.kernelPath,
    kernel_version: inputs.kernelVersion, busybox: inputs.busyboxPath, modules: order,
    ready_marker: TINY_CONSOLE_READY_MARKER, built_at: new Date().toISOString(),
  };
  await writeFile(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  await rm(status.dir, { recursive: true, force: true });
  await rename(tmp, status.dir);
  await pointCurrent(inputs.root, status.dir);
  // QEMU reads kernel and initrd at start, so running leases do not need older builds.
  for (const name of await readdir(inputs.root)) {
    if (/^tiny-console-[0-9a-f]{16}$/.test(name) && join(inputs.root, name) !== status.dir) await rm(join(inputs.root, name), { recursive: true, force: true });
  }
  return status;
}

async function pointCurrent(root: string, dir: string): Promise<void> {
  const link = join(root, 'tiny-console');
  const tmp = `${link}.tmp-${process.pid}`;
  await rm(tmp, { force: true });
  await symlink(basename(dir), tmp);
  await rename(tmp, link); // atomic swap: a running lease keeps its open files
}

/** The default template. Paths are resolved from the environment now; existence is checked by availability(). */
export function tinyConsoleTemplate(dir: string = defaultGoldenDir()): TemplateConfig {
  const current = join(dir, 'tiny-console');
  return {
    id: 'tiny-console',
    provider: 'qemu',
    adapter: 'console',
    os: 'linux',
    golden: join(current, 'vmlinuz'),
    description: 'Debian kernel + busybox initramfs with a root shell on the VGA console (test golden; built offline)',
    resources: { cpus: 1, memory_mb: 256 },
    ready_timeout_seconds: 180,
    provider_options: {
      initrd: join(current, 'initrd.img'),
      append: 'console=tty0 console=ttyS0 quiet loglevel=1 panic=-1',
      ready_marker: TINY_CONSOLE_READY_MARKER,
      build_hint: TINY_CONSOLE_BUILD_HINT,
    },
  };
}
