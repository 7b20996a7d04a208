/**
 * stats(): the lease's VM as Proxmox reports it (`GET /nodes/{node}/qemu/{vmid}/status/current`,
 * the VM verified by its identity tag first): `cpu` (the share of its `cpus` in use) as percent of
 * one host CPU (cpu × cpus × 100), `mem` and `maxmem`, and `uptime` (seconds since the VM last
 * started, a reboot included). Proxmox reports no disk usage of a VM there (`maxdisk` is its size),
 * so disk_bytes is absent; so is any figure a stopped VM has not.
 */
import type { MachineRef, MachineStats } from '@vmhub/core';
import { leaseVm } from './proxmox-snapshot.ts';
import type { Runtime } from './runtime.ts';
import { status } from './vm-steps.ts';

export async function proxmoxStats(rt: Runtime, machine: MachineRef, signal: AbortSignal): Promise<MachineStats> {
  const { vm } = await leaseVm(rt, machine, signal);
  const st = await status(vm, signal) as { status: string; cpu?: number; cpus?: number; mem?: number; maxmem?: number; uptime?: number };
  const out: MachineStats = {};
  if (st.status !== 'running') return out;
  if (typeof st.cpu === 'number') out.cpu_percent = st.cpu * (st.cpus ?? 1) * 100;
  if (typeof st.mem === 'number') out.memory_bytes = st.mem;
  if (typeof st.maxmem === 'number' && st.maxmem > 0) out.memory_limit_bytes = st.maxmem;
  if (typeof st.uptime === 'number') out.uptime_seconds = st.uptime;
  return out;
}
