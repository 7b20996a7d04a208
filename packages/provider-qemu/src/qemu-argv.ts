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
  /**
   * A workspace's disk (qemu-workspace.ts) attached at boot: a virtio disk with serial vmhub-ws on
   * the workspace port, mounted by the guest's init at the template's workspace path.
   */
  workspaceDisk?: string;
}

/** The QMP id of the PCIe root port a workspace disk goes on (q35), at boot or hot-plugged. */
export const WORKSPACE_PORT = 'wsport';

/**
 * Where a template's leases mount a workspace, or why they take none. Every launch of a template
 * that takes one (cold boot, saved-state maker, resume, fork) has the same slot: `vmhub_ws=<path>`
 * on the kernel command line and, on q35, an empty PCIe root port (WORKSPACE_PORT), so a lease
 * resumed from a saved state can have its workspace disk hot-plugged there (qemu-workspace.ts).
 */
export function workspaceSlot(template: TemplateConfig, options: QemuTemplateOptions): { path: string } | string {
  if (!options.workspace_disk) return 'its golden does not mount a workspace disk (template provider_options.workspace_disk; tiny-console\'s init does)';
  const user = options.user ?? 'root';
  const path = template.workspace_path ?? (user === 'root' ? '/root' : `/home/${user}`);
  if (!/^\/[A-Za-z0-9._/-]*$/.test(path)) return `workspace_path ${JSON.stringify(path)} cannot go on the kernel command line (letters, digits, . _ - / only)`;
  return { path };
}

/** Whether this machine type takes the workspace's root port (q35 and its versions). */
export function hasWorkspacePort(machine: string): boolean {
  return /(^|-)q35/.test(machine);
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
  const slot = workspaceSlot(template, options);
  const port = typeof slot !== 'string' && hasWorkspacePort(input.machine);
  if (port) argv.push('-device', `pcie-root-port,id=${WORKSPACE_PORT},chassis=8`);
  if (input.workspaceDisk) argv.push('-drive', `file=${input.workspaceDisk},if=none,id=ws0,format=qcow2`, '-device', `virtio-blk-pci,drive=ws0,serial=vmhub-ws${port ? `,bus=${WORKSPACE_PORT}` : ''}`);
  if (input.kernel) {
    argv.push('-kernel', input.kernel);
    if (options.initrd) argv.push('-initrd', options.initrd);
    const append = [options.append, typeof slot !== 'string' && `vmhub_ws=${slot.path}`].filter(Boolean).join(' ');
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
