/**
 * Doctor's snapshot line: the disk the live snapshots use (sum of their size_bytes, as vm_health
 * shows it) against the budget snapshots.max_bytes. At or over the budget, vm_snapshot create
 * answers QUOTA_EXCEEDED until snapshots are deleted or expire; it is not a failure of the host.
 */
import type { VmhubConfig } from '@vmhub/core/config';
import type { Store } from '@vmhub/store';
import type { Check } from './checks.ts';

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;

export async function snapshotCheck(store: Store | undefined, config: VmhubConfig): Promise<Check> {
  const base = { check: 'snapshot', subject: 'disk' } as const;
  const used = await store?.snapshotUsage().catch(() => undefined);
  if (!used) return { ...base, status: 'skip', detail: 'unknown: the store cannot be read' };
  const max = config.snapshots.max_bytes;
  const detail = `${used.count} live snapshot${used.count === 1 ? '' : 's'} use ${gib(used.bytes)} of the ${gib(max)} budget (snapshots.max_bytes)`;
  if (used.bytes < max) return { ...base, status: 'ok', detail };
  return { ...base, status: 'fail', detail: `${detail}: new snapshots are refused`, fix: 'delete snapshots (vm_snapshot {action: "delete"}) or wait until they expire (snapshots.keep_hours), or raise snapshots.max_bytes' };
}
