/**
 * KVM or TCG. /dev/kvm can exist without working (nested setups that expose the device but no
 * vmx/svm to this CPU hang inside KVM_RUN), so `auto` wants both the device and the CPU flag.
 */
import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';

export async function kvmUsable(): Promise<{ ok: boolean; reason?: string }> {
  try {
    await access('/dev/kvm', constants.R_OK | constants.W_OK);
  } catch {
    return { ok: false, reason: '/dev/kvm is missing or not read/writable by this user' };
  }
  const cpuinfo = await readFile('/proc/cpuinfo', 'utf8').catch(() => '');
  if (!/^flags\s*:.*\b(vmx|svm)\b/m.test(cpuinfo)) return { ok: false, reason: '/dev/kvm exists but the CPU shows no vmx/svm flag (nested virtualization off)' };
  return { ok: true };
}

export async function chooseAccel(wanted: 'auto' | 'kvm' | 'tcg'): Promise<{ accel: 'kvm' | 'tcg'; reason?: string }> {
  if (wanted === 'tcg') return { accel: 'tcg' };
  const kvm = await kvmUsable();
  if (wanted === 'kvm') return kvm.ok ? { accel: 'kvm' } : { accel: 'kvm', reason: kvm.reason };
  return kvm.ok ? { accel: 'kvm' } : { accel: 'tcg', reason: kvm.reason };
}
