/**
 * create(): overlay (when the golden is a qcow2 disk), then qemu started as a detached session
 * leader with its stdout/stderr in qemu.log, then the identity record with the pid's start time.
 * Idempotent per identity: a verified running machine is returned as is.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { VmhubError, type CreateRequest, type MachineRef } from '@vmhub/core';
import { chooseAccel } from './accel.ts';
import { templateOptions } from './options.ts';
import { procInfo, verifyQemu } from './proc.ts';
import { qemuArgv } from './qemu-argv.ts';
import { goldenProblem, isQcow2, SOURCE, tail, type QemuRuntime } from './qemu-runtime.ts';
import { FILES, machineDir, readRecord, writeRecord } from './state-dir.ts';

export async function create(rt: QemuRuntime, request: CreateRequest): Promise<MachineRef> {
  const { identity, template } = request;
  const dir = machineDir(rt.stateDir, identity);
  if (dir.includes(',')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] state directory ${dir} contains a comma, which QEMU option syntax cannot carry: choose another provider option state_dir / VMHUB_QEMU_STATE_DIR`, { source: SOURCE });
  const existing = await readRecord(dir);
  if (existing?.identity === identity && (await verifyQemu(existing.pid, existing.pid_start_time, identity)).verdict === 'ours') {
    return { identity, external_id: dir, details: { pid: existing.pid, state_dir: dir, accel: existing.accel } };
  }
  const problem = await goldenProblem(template);
  if (problem) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] template ${template.id}: ${problem}`, { source: SOURCE });
  const t = templateOptions(template.provider_options);
  const accel = await chooseAccel(rt.wantedAccel);
  if (rt.wantedAccel === 'kvm' && accel.reason) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] accel "kvm" requested but ${accel.reason}`, { source: SOURCE });
  request.signal.throwIfAborted();

  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Until qemu is verified running there is no record, and destroy never touches a directory
  // without one: a create that fails before then removes its directory itself.
  let disk: string | undefined;
  let pid: number;
  let startTime = '';
  let forwards: Record<number, number> = {};
  try {
    let kernel = t.kernel;
    if (await isQcow2(template.golden)) {
      disk = join(dir, FILES.overlay);
      await execa(rt.qemuImg, ['create', '-q', '-f', 'qcow2', '-F', 'qcow2', '-b', template.golden, disk], { timeout: 30_000 }).catch((err: Error) => {
        throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] qemu-img could not create an overlay of ${template.golden}: ${err.message}`, { source: SOURCE, cause: err });
      });
    } else {
      kernel ??= template.golden;
    }
    forwards = await freePorts(t.forward_ports ?? []);
    const argv = qemuArgv({ identity, dir, template, options: t, accel: accel.accel, machine: rt.machine, defaultMemoryMb: rt.defaultMemoryMb, disk, kernel, forwards });
    request.signal.throwIfAborted();

    const logFd = openSync(join(dir, FILES.log), 'a');
    try {
      const child = spawn(rt.binary, argv, { detached: true, stdio: ['ignore', logFd, logFd] });
      pid = await new Promise<number>((ok, fail) => {
        child.once('spawn', () => ok(child.pid!));
        child.once('error', fail);
      }).catch((err: Error) => {
        throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] cannot start ${rt.binary}: ${err.message} (apt-get install -y qemu-system-x86)`, { source: SOURCE, cause: err });
      });
      child.unref();
    } finally {
      closeSync(logFd);
    }
    for (let i = 0; i < 50 && !startTime; i++) {
      const info = await procInfo(pid);
      if (info && info.argv.includes(identity)) startTime = info.startTime;
      else await sleep(20);
    }
    if (!startTime) throw new VmhubError('PROVISION_FAILED', `[vmhub] [${SOURCE}] qemu exited at once: ${await tail(join(dir, FILES.log))}`, { source: SOURCE });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  await writeRecord(dir, {
    identity, lease_id: request.lease_id, template: template.id, created_at: new Date().toISOString(),
    pid, pid_start_time: startTime, accel: accel.accel, overlay: disk ? FILES.overlay : undefined, guest_agent: t.guest_agent === true,
    ...(Object.keys(forwards).length ? { forwards } : {}),
  });
  rt.context.log('info', 'qemu started', { identity, pid, accel: accel.accel, template: template.id });
  return { identity, external_id: dir, details: { pid, state_dir: dir, accel: accel.accel } };
}

/**
 * An ephemeral 127.0.0.1 port per forwarded guest port, picked by binding port 0. QEMU binds it a
 * moment later; a port taken in between makes qemu exit at once with a message saying so.
 */
async function freePorts(guestPorts: number[]): Promise<Record<number, number>> {
  const out: Record<number, number> = {};
  for (const guest of guestPorts) {
    out[guest] = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => { const { port } = srv.address() as AddressInfo; srv.close(() => resolve(port)); });
    });
  }
  return out;
}
