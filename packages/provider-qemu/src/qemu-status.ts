/**
 * status() and availability(): never throw; every reason names the fix (the apt package, the
 * build command of a missing golden, the accel setting).
 */
import type { ProviderStatus, TemplateConfig } from '@vmhub/core';
import { chooseAccel } from './accel.ts';
import { goldenProblem, SOURCE, type QemuRuntime } from './qemu-runtime.ts';

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
  const accel = await chooseAccel(rt.wantedAccel);
  if (rt.wantedAccel === 'kvm' && accel.reason) return { availability: 'unavailable', reason: `accel "kvm" requested but ${accel.reason}: use accel "auto" or "tcg"` };
  const problem = await goldenProblem(template);
  if (problem) return { availability: 'unavailable', reason: problem };
  return { availability: 'available' };
}
