/**
 * status() and availability(): never throw; every reason names the fix (the apt package, the
 * build command of a missing golden, the accel setting).
 */
import { execa } from 'execa';
import type { ProviderStatus, TemplateConfig } from '@vmhub/core';
import { chooseAccel } from './accel.ts';
import { templateOptions } from './options.ts';
import { goldenProblem, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { guestPorts } from './qemu-ssh.ts';

export async function status(rt: QemuRuntime): Promise<ProviderStatus> {
  try {
    const v = await rt.qemuVersion();
    const accel = await chooseAccel(rt.wantedAccel);
    return { ok: true, details: { version: v, accel: accel.accel, accel_reason: accel.reason, state_dir: rt.stateDir } };
  } catch (err) {
    return { ok: false, reason: `[vmhub] [${SOURCE}] ${rt.binary} not runnable (${(err as Error).message}): apt-get install -y qemu-system-x86 qemu-utils, or set provider option qemu_binary / VMHUB_QEMU_BINARY` };
  }
}

export async function availability(rt: QemuRuntime, template: TemplateConfig): Promise<{ availability: 'available' | 'unavailable' | 'stub'; reason?: string }> {
  try {
    await rt.qemuVersion();
  } catch {
    return { availability: 'unavailable', reason: `${rt.binary} not found: apt-get install -y qemu-system-x86 qemu-utils, or set provider option qemu_binary / VMHUB_QEMU_BINARY` };
  }
  const tcp = forwardsNeedTcp(template);
  if (tcp) return { availability: 'unavailable', reason: tcp };
  const accel = await chooseAccel(rt.wantedAccel);
  if (rt.wantedAccel === 'kvm' && accel.reason) return { availability: 'unavailable', reason: `accel "kvm" requested but ${accel.reason}: use accel "auto" or "tcg"` };
  const problem = await goldenProblem(template);
  if (problem) return { availability: 'unavailable', reason: problem };
  if (templateOptions(template.provider_options).ssh && !(await genisoimageFound())) {
    return { availability: 'unavailable', reason: 'genisoimage not found (it writes the per-lease NoCloud seed of a template with provider_options.ssh): apt-get install -y genisoimage' };
  }
  return { availability: 'available' };
}

/**
 * QEMU forwards guest ports only as TCP on 127.0.0.1 (7.2's hostfwd has no unix-socket form), which
 * every local user reaches; other providers forward over 0700 unix sockets. So a template listing
 * forward_ports (or provider_options.ssh, whose port is forwarded the same way) must say it accepts that (`forward_tcp: true`); the reason says why and how.
 */
export function forwardsNeedTcp(template: TemplateConfig): string | undefined {
  let ports: readonly number[] = [];
  try { ports = guestPorts(templateOptions(template.provider_options)); } catch { return undefined; }
  if (ports.length === 0 || template.forward_tcp === true) return undefined;
  return `[vmhub] [${SOURCE}] template ${template.id} forwards guest ports ${ports.join(', ')}: QEMU can forward them only as TCP on 127.0.0.1, which every local user of this host reaches (no unix-socket forward in QEMU's user-mode network). Set "forward_tcp": true on the template to accept that (and let the guest service authenticate its clients), or drop provider_options.forward_ports (docs/security.md, Guest port forwards)`;
}

/** Whether genisoimage runs (asked again each time: it may be installed while the server runs). */
async function genisoimageFound(): Promise<boolean> {
  return execa('genisoimage', ['-version'], { timeout: 10_000 }).then(() => true, () => false);
}
