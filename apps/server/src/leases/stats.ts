/**
 * vm_lease_status {stats: true}: what a ready lease's machine uses now, from its provider
 * (Provider.stats) — CPU over a short sample, memory and its limit, the machine's own disk on the
 * host, uptime since its last boot. A figure the provider cannot measure is absent, never 0; a
 * provider without stats() answers CAPABILITY_UNAVAILABLE with the reason (machine-support.ts).
 */
import { VmhubError, type LeaseStatusInfo, type MachineStats, type TemplateConfig } from '@vmhub/core';
import { deadlineSignal } from '@vmhub/core/router';
import { machineRef, type LeaseRow, type Store } from '@vmhub/store';
import type { Registry } from '../registry.ts';
import { assertMachine } from './machine-support.ts';

/** How long a provider may take to measure (a CPU sample takes about a second). */
const STATS_CALL_MS = 15_000;

const FIELDS = ['cpu_percent', 'memory_bytes', 'memory_limit_bytes', 'disk_bytes', 'uptime_seconds'] as const satisfies readonly (keyof MachineStats)[];
const INTEGERS = new Set<string>(['memory_bytes', 'memory_limit_bytes', 'disk_bytes']);

export async function machineStats(store: Store, registry: Registry, row: LeaseRow, template: TemplateConfig): Promise<NonNullable<LeaseStatusInfo['stats']>> {
  const provider = registry.providers.get(template.provider);
  assertMachine(provider, template, 'stats', 'vm_lease_status {stats: true}');
  const machine = await store.getMachine(row.id);
  const ref = machine ? machineRef(machine) : undefined;
  if (!ref) throw new VmhubError('INTERNAL', `lease ${row.id} is ready but has no machine record`);
  const deadline = deadlineSignal(STATS_CALL_MS, `vm_lease_status {stats: true}: the provider did not answer within ${STATS_CALL_MS / 1000} s`);
  let raw: MachineStats;
  try {
    raw = await provider!.stats!(ref, { template, signal: deadline.signal });
  } finally {
    deadline.clear();
  }
  // Only finite, non-negative figures of the known fields: a provider's NaN or -1 is "not known".
  const out: Record<string, number> = {};
  for (const k of FIELDS) {
    const v = raw[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) continue;
    out[k] = INTEGERS.has(k) ? Math.round(v) : Math.round(v * 10) / 10;
  }
  return out;
}
