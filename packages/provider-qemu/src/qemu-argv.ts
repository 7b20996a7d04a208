/**
 * The qemu-system command line for one lease. Everything comes from the template and the state
 * directory; nothing from agent input. `-name <identity>` is what destroy later finds in
 * /proc/<pid>/cmdline. Two QMP monitors, because each serves one client at a time: `qmp.sock`
 * is the provider's own (readiness, quit on destroy), `console.sock` the lease's console, so
 * an open console never stands in the way of a clean teardown. `-vnc unix:<dir>/vnc.sock,password=on`
 * is QEMU's own VNC server beside them (ConsoleHandle.openVnc, qemu-vnc.ts); `-display none` only
 * turns off a local window, not VNC.
 */
import { join } from 'node:path';
import type { TemplateConfig } from '@vmhub/core';
import type { QemuTemplateOptions } from './options.ts';
import { FILES } from './state-dir.ts';
import { vncArg, type VncMode } from './qemu-vnc.ts';

export interface ArgvInput {
  identity: string;
  dir: string;
  template: TemplateConfig;
  options: QemuTemplateOptions;
  accel: 'kvm' | 'tcg';
  machine: string;
  defaultMemoryMb: number;
  /** Overlay path when the golden is a disk. */
  disk?: string;
  /** Kernel for direct boot. */
  kernel?: string;
  /** QEMU's VNC server on `vnc.sock` in the state dir (qemu-vnc.ts). Default 'password'. */
  vnc?: VncMode;
  /** Guest TCP port → 127.0.0.1 port on the host (user-mode hostfwd). */
  forwards?: Record<number, number>;
  /**
   * `-device vmgenid,guid=auto`: a new VM generation ID per qemu process, announced to the guest
   * (ACPI notify) when it resumes from a saved state, so its kernel reseeds its RNG. On for every
   * lease's qemu (qemu-launch.ts: a cold-booted machine can be snapshot and forked, and a fork's
   * device set is its source's) and for the saving VM (qemu-saved-state.ts).
   */
  vmgenid?: boolean;
  /** `-incoming defer`: start without running, waiting for QMP `migrate-incoming` (qemu-restore.ts). */
  incoming?: boolean;
  /** The lease's NoCloud seed image (nocloud-seed.ts), attached as a read-only virtio disk. */
  seed?: string;
  /** A workspace's disk (qemu-workspace.ts): a virtio disk with serial vmhub-ws, mounted at `path` by the guest's init. */
  workspace?: { disk: string; path: string };
}

/** `-nic`: none; user-mode (network); or user-mode restricted to the forwards (no route out). */
function nicArg(network: boolean, forwards: Record<number, number>): string {
  const fwd = Object.entries(forwards).map(([guest, host]) => `,hostfwd=tcp:127.0.0.1:${host}-:${guest}`).join('');
  if (!network && !fwd) return 'none';
  return `user,model=virtio-net-pci${network ? '' : ',restrict=on'}${fwd}`;
}

function vncFlags(dir: string, mode: VncMode): string[] {
  const arg = vncArg(dir, mode);
  return arg ? ['-vnc', arg] : [];
}

export function qemuArgv(input: ArgvInput): string[] {
  const { dir, template, options } = input;
  const memory = template.resources?.memory_mb ?? input.defaultMemoryMb;
  const cpus = Math.max(1, Math.round(template.resources?.cpus ?? 1));
  const argv = [
    '-name', input.identity,
    '-machine', `${input.machine},accel=${input.accel}`,
    '-m', String(memory),
    '-smp', String(cpus),
    '-display', 'none',
    '-vga', 'std',
    '-device', 'qemu-xhci',
    '-device', 'usb-tablet',
    '-device', 'usb-kbd',
    '-qmp', `unix:${join(dir, FILES.qmp)},server=on,wait=off`,
    '-qmp', `unix:${join(dir, FILES.console)},server=on,wait=off`,
    ...vncFlags(dir, input.vnc ?? options.vnc ?? 'password'),
    '-serial', `file:${join(dir, FILES.serial)}`,
    '-monitor', 'none',
    '-parallel', 'none',
    '-no-reboot',
  ];
  if (input.accel === 'kvm') argv.push('-cpu', 'host');
  argv.push('-nic', nicArg(options.network === true, input.forwards ?? {}));
  if (input.disk) argv.push('-drive', `file=${input.disk},if=virtio,format=qcow2,cache=unsafe`);
  if (input.seed) argv.push('-drive', `file=${input.seed},if=virtio,format=raw,readonly=on`);
  if (input.workspace) argv.push('-drive', `file=${input.workspace.disk},if=none,id=ws0,format=qcow2`, '-device', 'virtio-blk-pci,drive=ws0,serial=vmhub-ws');
  if (input.kernel) {
    argv.push('-kernel', input.kernel);
    if (options.initrd) argv.push('-initrd', options.initrd);
    const append = [options.append, input.workspace && `vmhub_ws=${input.workspace.path}`].filter(Boolean).join(' ');
    if (append) argv.push('-append', append);
  }
  if (options.guest_agent) {
    argv.push(
      '-chardev', `socket,id=qga0,path=${join(dir, FILES.qga)},server=on,wait=off`,
      '-device', 'virtio-serial-pci',
      '-device', 'virtserialport,chardev=qga0,name=org.qemu.guest_agent.0',
    );
  }
  if (input.vmgenid) argv.push('-device', 'vmgenid,guid=auto');
  if (input.incoming) argv.push('-incoming', 'defer');
  return argv;
}
