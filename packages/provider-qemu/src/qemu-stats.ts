/**
 * stats(): what the lease's qemu uses, read on the host from /proc (its pid verified like destroy
 * verifies it):
 *   cpu_percent        — the process's user + system CPU time (/proc/<pid>/stat) over a
 *                        CPU_SAMPLE_MS sample, in percent of one host CPU (vCPU threads, TCG's
 *                        translation and device emulation all count: what the machine costs);
 *   memory_bytes       — the process's resident set (VmRSS): guest memory it touched, plus qemu's own;
 *   memory_limit_bytes — the guest's RAM (the template's resources.memory_mb, else the provider's default);
 *   disk_bytes         — the bytes the lease's top qcow2 overlay occupies on the host (allocated
 *                        blocks), for a machine with a disk; absent for a kernel + initramfs one;
 *   uptime_seconds     — since the guest last booted: its last reboot (the record's `rebooted`), else
 *                        the qemu process's start (a machine resumed from a saved state counts
 *                        from its resume).
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MachineRef, MachineStats, TemplateConfig } from '@vmhub/core';
import { procInfo } from './proc.ts';
import { requireLive, type QemuRuntime } from './qemu-runtime.ts';
import { FILES } from './state-dir.ts';

/** The CPU sample's length. */
export const CPU_SAMPLE_MS = 1000;
/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux vmhub runs on). */
const TICKS = 100;

export async function qemuStats(rt: QemuRuntime, machine: MachineRef, options: { template: TemplateConfig; signal: AbortSignal }): Promise<MachineStats> {
  const { dir, record } = await requireLive(rt, machine, 'stats');
  const out: MachineStats = {};
  const first = await procInfo(record.pid);
  const t0 = performance.now();
  await sleep(CPU_SAMPLE_MS, undefined, { signal: options.signal });
  const second = await procInfo(record.pid);
  if (first && second) out.cpu_percent = ((second.cpuTicks - first.cpuTicks) / TICKS) / ((performance.now() - t0) / 1000) * 100;
  const status = await readFile(`/proc/${record.pid}/status`, 'utf8').catch(() => '');
  const rss = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (rss) out.memory_bytes = Number(rss[1]) * 1024;
  out.memory_limit_bytes = (options.template.resources?.memory_mb ?? rt.defaultMemoryMb) * 1024 * 1024;
  const overlay = await stat(join(dir, record.overlay ?? FILES.overlay)).catch(() => undefined);
  if (overlay?.isFile()) out.disk_bytes = overlay.blocks * 512;
  const started = second ? await startedAt(Number(second.startTime)) : undefined;
  const rebooted = record.rebooted ? Date.parse(record.rebooted.at) : NaN;
  const since = Math.max(started ?? 0, Number.isFinite(rebooted) ? rebooted : 0);
  if (since > 0) out.uptime_seconds = Math.max(0, (Date.now() - since) / 1000);
  return out;
}

/** When a process that started `tick` clock ticks after boot started, in ms since the epoch. */
async function startedAt(tick: number): Promise<number | undefined> {
  const btime = /^btime (\d+)$/m.exec(await readFile('/proc/stat', 'utf8').catch(() => ''));
  return btime ? Number(btime[1]) * 1000 + (tick / TICKS) * 1000 : undefined;
}
