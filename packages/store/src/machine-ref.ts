/**
 * A stored machine row as a provider handle. Structurally the same as @vmhub/core's MachineRef
 * (the store depends on nothing of ours), so the result goes straight to `provider.destroy()`.
 */
import type { MachineTable } from './schema.ts';

export interface MachineRef {
  /** `vmhub-<instance>-<lease uuid>`: what the provider verifies on the machine before destroying it. */
  identity: string;
  /** The provider's own handle (container id, VMID, state dir). */
  external_id: string;
  node?: string;
  details?: Record<string, unknown>;
}

/**
 * The handle a machine row stores, or `undefined` when it stores none.
 *
 * The rule, for the server and the reaper alike: a row whose `external_id` is null or empty (written
 * before the provider's create answered, by a process that then died or is still creating) has
 * no handle. It is never turned into `''`, which a provider might resolve to something else.
 * Callers handle that case explicitly: locate the machine by its identity through
 * `provider.list()`, and record it `already_gone` only when that list succeeded; if the provider
 * cannot be listed the teardown fails and is retried.
 *
 * `details` is included when it parses to a non-empty object; a corrupt column is ignored, so it
 * never blocks a teardown.
 */
export function machineRef(row: Pick<MachineTable, 'identity' | 'external_id' | 'node' | 'details'>): MachineRef | undefined {
  if (row.external_id === null || row.external_id === '') return undefined;
  const ref: MachineRef = { identity: row.identity, external_id: row.external_id };
  if (row.node) ref.node = row.node;
  const details = parseDetails(row.details);
  if (details) ref.details = details;
  return ref;
}

function parseDetails(text: string): Record<string, unknown> | undefined {
  try {
    const d: unknown = JSON.parse(text);
    return d && typeof d === 'object' && !Array.isArray(d) && Object.keys(d).length > 0 ? (d as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
