/**
 * The lease state machine (docs/architecture.md, "Leases, identity and teardown"). Every status
 * change in the store goes through this table, so the server and the reaper cannot disagree on
 * the lifecycle: a pair the table does not allow is refused before the database is touched.
 *
 *   provisioning → starting → ready → releasing → released
 *        │            │    ↑    │
 *        │            │    └────┤  ready → starting: a restart (vm_lease_restart), ready again once it boots
 *        └────────────┴─────────┴──→ failed   (boot failure or timeout; from ready: machine lost)
 *        └────────────┴─────────┴──→ expired → reaped
 *   provisioning / starting ──────→ releasing (released while provisioning)
 *
 * `released`, `failed` and `reaped` are final: the row stays as a tombstone. Tearing down the
 * machine of a failed lease is recorded (machine state, events) but its status stays `failed`.
 */

export const LEASE_STATUSES = ['provisioning', 'starting', 'ready', 'releasing', 'released', 'failed', 'expired', 'reaped'] as const;
export type LeaseStatus = (typeof LEASE_STATUSES)[number];

/** From → the statuses it may move to. */
export const TRANSITIONS = {
  provisioning: ['starting', 'failed', 'releasing', 'expired'],
  starting: ['ready', 'failed', 'releasing', 'expired'],
  ready: ['releasing', 'expired', 'failed', 'starting'],
  releasing: ['released'],
  expired: ['reaped'],
  released: [],
  failed: [],
  reaped: [],
} as const satisfies Record<LeaseStatus, readonly LeaseStatus[]>;

/** Statuses with no way out: the lease is over and its row is a tombstone. */
export const FINAL_STATUSES: readonly LeaseStatus[] = LEASE_STATUSES.filter((s) => TRANSITIONS[s].length === 0);
/** Statuses that still own their machine's identity: every status that is not final (live or expired). */
export const OWNING_STATUSES: readonly LeaseStatus[] = LEASE_STATUSES.filter((s) => TRANSITIONS[s].length > 0);

type SourcesOf<T extends LeaseStatus> = { [S in LeaseStatus]: T extends (typeof TRANSITIONS)[S][number] ? S : never }[LeaseStatus];

/**
 * The statuses a lease may move to from every one of `F`. Checked by the compiler when the
 * source statuses are literals; a source only known as `LeaseStatus` is checked at run time.
 */
export type TransitionTarget<F extends LeaseStatus> = LeaseStatus extends F
  ? LeaseStatus
  : { [T in LeaseStatus]: [F] extends [SourcesOf<T>] ? T : never }[LeaseStatus];

export class LeaseTransitionError extends Error {
  readonly code = 'INVALID_TRANSITION';
}

export function canTransition(from: LeaseStatus, to: LeaseStatus): boolean {
  return (TRANSITIONS[from] as readonly string[] | undefined)?.includes(to) ?? false;
}

/** Throw unless every `from` → `to` is in TRANSITIONS (and `from` is not empty). */
export function assertTransition(leaseId: string, from: readonly LeaseStatus[], to: LeaseStatus): void {
  if (from.length === 0) throw new LeaseTransitionError(`[vmhub] [store] lease ${leaseId}: a transition to ${to} needs at least one source status`);
  for (const f of from) {
    if (canTransition(f, to)) continue;
    const allowed = (TRANSITIONS[f] as readonly string[] | undefined)?.join(', ');
    throw new LeaseTransitionError(`[vmhub] [store] lease ${leaseId}: ${f} → ${to} is not a lease transition; from ${f} a lease may move to ${allowed || 'nothing (it is final)'} (the state machine in @vmhub/store's README)`);
  }
}

/** Machine row states. `destroyed` and `mismatch` are settled: there is nothing left to tear down. */
export const MACHINE_STATES = ['creating', 'running', 'destroying', 'destroyed', 'mismatch'] as const;
export type MachineState = (typeof MACHINE_STATES)[number];
export const SETTLED_MACHINE_STATES: readonly MachineState[] = ['destroyed', 'mismatch'];
