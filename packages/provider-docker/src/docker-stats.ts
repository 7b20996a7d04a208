/**
 * stats(): what the lease's container uses, from the engine.
 *   cpu_percent        — one stats sample (`GET /containers/{id}/stats?stream=false`: the engine
 *                        reads the cgroup twice, about a second apart, as precpu_stats and
 *                        cpu_stats): the container's CPU time over the system's in that interval,
 *                        times the online CPUs — `docker stats`' figure (100 = one core busy).
 *   memory_bytes       — the cgroup's usage less its inactive page cache (`docker stats`' figure);
 *   memory_limit_bytes — the cgroup's limit (the host's memory when the template sets none);
 *   disk_bytes         — the container's writable layer (`SizeRw`, inspect with `?size=1`);
 *   uptime_seconds     — since the container last started (State.StartedAt).
 * A figure the engine does not give (no previous CPU sample, no SizeRw) is left out.
 */
import type { MachineRef, MachineStats } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { leaseContainer } from './docker-create.ts';

interface StatsJson {
  cpu_stats?: { cpu_usage?: { total_usage?: number; percpu_usage?: number[] }; system_cpu_usage?: number; online_cpus?: number };
  precpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number };
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
}

export async function containerStats(docker: DockerClient, machine: MachineRef, signal: AbortSignal): Promise<MachineStats> {
  // The sample (about a second) is asked at once; its answer is used only once the one inspect
  // (with the writable layer's size) has shown the container carries the lease's identity.
  const sample = docker.json<StatsJson>('GET', `/containers/${encodeURIComponent(machine.external_id || machine.identity)}/stats`, { query: { stream: false }, signal });
  sample.catch(() => undefined); // not unhandled when the inspect throws first
  const sized = await leaseContainer(docker, machine, signal, { size: true });
  const stats = await sample;
  const out: MachineStats = {};
  const cpu = cpuPercent(stats);
  if (cpu !== undefined) out.cpu_percent = cpu;
  const mem = stats.memory_stats;
  if (typeof mem?.usage === 'number') {
    // cgroup v2 names it inactive_file, v1 total_inactive_file (docker CLI's calculateMemUsageUnixNoCache).
    const cache = mem.stats?.inactive_file ?? mem.stats?.total_inactive_file ?? 0;
    out.memory_bytes = Math.max(0, mem.usage - (cache < mem.usage ? cache : 0));
  }
  if (typeof mem?.limit === 'number' && mem.limit > 0) out.memory_limit_bytes = mem.limit;
  if (typeof sized.SizeRw === 'number') out.disk_bytes = sized.SizeRw;
  const started = Date.parse(sized.State.StartedAt ?? '');
  if (sized.State.Running && Number.isFinite(started)) out.uptime_seconds = Math.max(0, (Date.now() - started) / 1000);
  return out;
}

/** `docker stats`' CPU figure from one sample, or undefined when it has no previous reading. */
export function cpuPercent(s: StatsJson): number | undefined {
  const total = s.cpu_stats?.cpu_usage?.total_usage;
  const prevTotal = s.precpu_stats?.cpu_usage?.total_usage;
  const system = s.cpu_stats?.system_cpu_usage;
  const prevSystem = s.precpu_stats?.system_cpu_usage;
  if (total === undefined || prevTotal === undefined || system === undefined || prevSystem === undefined || prevSystem === 0) return undefined;
  const cpuDelta = total - prevTotal;
  const systemDelta = system - prevSystem;
  if (systemDelta <= 0 || cpuDelta < 0) return undefined;
  const cpus = s.cpu_stats?.online_cpus || s.cpu_stats?.cpu_usage?.percpu_usage?.length || 1;
  return (cpuDelta / systemDelta) * cpus * 100;
}
