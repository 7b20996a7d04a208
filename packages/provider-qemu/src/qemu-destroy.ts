/**
 * destroy(): by identity, never by pid alone. The record must name the identity, the pid must be
 * alive with the recorded start time and carry `-name <identity>`; anything else is
 * identity_mismatch and left alone. Channels and consoles core still holds are not closed here:
 * they die with qemu, and closing them afterwards resolves at once. The lease's SSH key file
 * (qemu-ssh.ts) is dropped with the machine, or when the machine is already gone; its NoCloud seed
 * is in the state directory removed here.
 */
import { rm } from 'node:fs/promises';
import type { DestroyOutcome, MachineRef } from '@vmhub/core';
import { verifyQemu } from './proc.ts';
import { findByIdentity, type QemuRuntime } from './qemu-runtime.ts';
import { stopQemu } from './qemu-spawn.ts';
import { readRecord } from './state-dir.ts';

export async function destroy(rt: QemuRuntime, machine: MachineRef): Promise<DestroyOutcome> {
  const found = await findByIdentity(rt.stateDir, machine, readRecord);
  if (found.verdict === 'gone') {
    rt.secrets.drop(machine.identity);
    return 'already_gone';
  }
  if (found.verdict === 'mismatch') {
    rt.context.log('warn', 'state record does not carry this identity; left alone', { identity: machine.identity, dir: found.dir, found: found.record?.identity });
    return 'identity_mismatch';
  }
  const { dir, record } = found;
  const v = await verifyQemu(record.pid, record.pid_start_time, record.identity);
  if (v.verdict === 'mismatch') {
    rt.context.log('warn', 'process named by the state record is not this machine; left alone', { identity: machine.identity, pid: record.pid, why: v.why });
    return 'identity_mismatch';
  }
  if (v.verdict === 'ours') await stopQemu(rt, record, dir);
  await rm(dir, { recursive: true, force: true });
  rt.secrets.drop(machine.identity);
  rt.context.log('info', 'qemu destroyed', { identity: machine.identity, pid: record.pid, was_running: v.verdict === 'ours' });
  return v.verdict === 'ours' ? 'destroyed' : 'already_gone';
}
