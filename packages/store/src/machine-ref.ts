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

/** What one `provider.destroy()` answered (@vmhub/core's DestroyOutcome, structurally). */
export type DestroyAnswer = 'destroyed' | 'already_gone' | 'identity_mismatch';

/** What the destroys of one lease's machine came to, as the store records it. */
export interface DestroyFold {
  outcome: DestroyAnswer;
  /** The machine row's state: ours and gone, or left alone because it carries another identity. */
  machine: 'destroyed' | 'mismatch';
}

/**
 * The one rule for a lease's destroy answers, for the server and the reaper alike (a machine may
 * have been found under several handles: the stored one and the provider's listing). It is ours
 * unless every machine found carries another identity; none found at all means already gone.
 */
export function foldDestroys(answers: readonly DestroyAnswer[]): DestroyFold {
  const ours = answers.length === 0 || answers.some((a) => a !== 'identity_mismatch');
  if (!ours) return { outcome: 'identity_mismatch', machine: 'mismatch' };
  return { outcome: answers.includes('destroyed') ? 'destroyed' : 'already_gone', machine: 'destroyed' };
}

/** A machine a provider listed, as a handle for `provider.destroy()`. */
export function listedRef(m: MachineRef): MachineRef {
  return { identity: m.identity, external_id: m.external_id, ...(m.node ? { node: m.node } : {}), ...(m.details ? { details: m.details } : {}) };
}
