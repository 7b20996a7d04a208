/**
 * Teardown under claims, for the server (one lease) and the reaper (batches) alike. A claim is
 * one conditional UPDATE (`claimed_by`, `claim_expires_at`): it wins only when nobody holds an
 * unexpired one, and it lapses if its holder dies, so abandoned work is picked up again. After
 * the destroys, one transaction records everything: machine rows, final lease statuses (only
 * where the recorder still holds the claim), claims released, events — and the ended leases'
 * detached-command rows (jobs.ts) and screen mappings (screens.ts) deleted.
 */
import type { Kysely, Selectable } from 'kysely';
import { assertEventKind, eventsOfCall, insertEvents, type NewEvent } from './events.ts';
import { assertTransition, FINAL_STATUSES, type LeaseStatus } from './lifecycle.ts';
import type { MachineRef } from './machine-ref.ts';
import { LEASE_COLUMNS, type Database, type LeaseTable, type MachineTable } from './schema.ts';

type LeaseRow = Selectable<LeaseTable>;
type MachineRow = Selectable<MachineTable>;

export interface ClaimResult {
  /** Rows now claimed by the caller (as updated). */
  claimed: LeaseRow[];
  /** Leases still in a claimable status but held by someone else's unexpired claim. */
  elsewhere: { id: string; claimed_by: string | null }[];
}

/** An event a teardown record carries; the store adds the record's lease_id. */
export type TeardownEvent = Omit<NewEvent, 'lease_id'>;

export interface TeardownRecord {
  lease_id: string;
  /** What happened to the machine, for the `lease.<to>` event (`destroyed`, `already_gone`, …). */
  outcome?: string;
  /** The machine row's new state; omitted when the row needs no change (already settled, or none). */
  machine?: 'destroyed' | 'mismatch';
  /** The store had no machine row and the provider listed this one: insert it in state `machine`. */
  found?: { identity: string; provider: string; ref: MachineRef };
  /**
   * The lease's final transition, applied only while the lease is still in `from` and claimed by
   * the recording actor (a claim that lapsed and was taken over is not ours to finish). A
   * `mismatch` machine finishes with error IDENTITY_MISMATCH: nothing of ours is left for it.
   * Without one the status stays (a failed lease, a finished tombstone).
   */
  final?: { from: LeaseStatus; to: LeaseStatus };
  /** Leave the claim to lapse instead of releasing it: the destroy failed and may still be running. */
  keepClaim?: boolean;
  /** Machine events (machine.*, orphan.*, reaper.teardown_error); `lease.<to>` is added by the store. */
  events?: readonly TeardownEvent[];
}

export interface FinishedLease {
  lease_id: string;
  from: LeaseStatus;
  to: LeaseStatus;
}

const MISMATCH_ERROR = { error_code: 'IDENTITY_MISMATCH', error_message: 'the machine no longer carried this lease identity; left untouched' } as const;

export async function claimMany(db: Kysely<Database>, ids: readonly string[], by: string, until: number, inStatus: readonly LeaseStatus[]): Promise<ClaimResult> {
  const result: ClaimResult = { claimed: [], elsewhere: [] };
  if (ids.length === 0 || inStatus.length === 0) return result;
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const now = Date.now();
    const rows = await db.updateTable('leases')
      .set({ claimed_by: by, claim_expires_at: until, updated_at: now })
      .where('id', 'in', chunk)
      .where('status', 'in', [...inStatus])
      .where((eb) => eb.or([eb('claim_expires_at', 'is', null), eb('claim_expires_at', '<', now), eb('claimed_by', '=', by)]))
      .returning(LEASE_COLUMNS)
      .execute();
    result.claimed.push(...rows);
    if (rows.length === chunk.length) continue;
    // Still claimable means someone else holds it; otherwise it moved on (finished meanwhile).
    const won = new Set(rows.map((r) => r.id));
    const current = await db.selectFrom('leases').select(['id', 'status', 'claimed_by']).where('id', 'in', chunk.filter((id) => !won.has(id))).execute();
    for (const r of current) if (inStatus.includes(r.status)) result.elsewhere.push({ id: r.id, claimed_by: r.claimed_by });
  }
  return result;
}

export async function renewClaims(db: Kysely<Database>, ids: readonly string[], by: string, until: number): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('leases').set({ claim_expires_at: until }).where('id', 'in', [...ids]).where('claimed_by', '=', by).execute();
}

export async function machinesFor(db: Kysely<Database>, leaseIds: readonly string[]): Promise<Map<string, MachineRow>> {
  const out = new Map<string, MachineRow>();
  for (let i = 0; i < leaseIds.length; i += 500) {
    for (const row of await db.selectFrom('machines').selectAll().where('lease_id', 'in', leaseIds.slice(i, i + 500)).execute()) out.set(row.lease_id, row);
  }
  return out;
}

/** Refuse a bad record before anything is written (and before any connection is used). */
export function checkRecords(records: readonly TeardownRecord[]): void {
  for (const r of records) {
    if (r.final) {
      assertTransition(r.lease_id, [r.final.from], r.final.to);
      if (!FINAL_STATUSES.includes(r.final.to)) throw new Error(`[vmhub] [store] teardown record for lease ${r.lease_id} ends in ${r.final.to}, which is not final (${FINAL_STATUSES.join(', ')}): use transition() for other moves`);
    }
    for (const e of r.events ?? []) assertEventKind(e.kind);
    if (r.found && !r.machine) throw new Error(`[vmhub] [store] teardown record for lease ${r.lease_id} has a found machine but no state to record it in`);
  }
}

/**
 * Statements: one per found row, one per machine state, one per final (from, to, mismatch)
 * group, one for released claims, one per 500 events. Every write is idempotent or conditional,
 * and every event carries `<token>:<lease>:…`, so a retry (`attempt` > 0) of a call whose first
 * attempt committed changes nothing and writes no event twice; the leases that attempt finished
 * are read back from its events.
 */
export async function recordTeardowns(db: Kysely<Database>, actor: string, records: readonly TeardownRecord[], token: string, attempt = 0): Promise<FinishedLease[]> {
  checkRecords(records);
  if (records.length === 0) return [];
  const finished: FinishedLease[] = [];
  await db.transaction().execute(async (trx) => {
    const now = Date.now();
    const byState = new Map<string, string[]>();
    for (const r of records) {
      if (r.found && r.machine) {
        const { ref, identity, provider } = r.found;
        await trx.insertInto('machines')
          .values({ lease_id: r.lease_id, identity, provider, external_id: ref.external_id, node: ref.node ?? null, state: r.machine, details: JSON.stringify(ref.details ?? {}), created_at: now, updated_at: now })
          .onConflict((oc) => oc.column('lease_id').doUpdateSet({ external_id: ref.external_id, state: r.machine!, updated_at: now }))
          .execute();
      } else if (r.machine) {
        byState.set(r.machine, [...(byState.get(r.machine) ?? []), r.lease_id]);
      }
    }
    for (const [state, ids] of byState) {
      await trx.updateTable('machines').set({ state: state as 'destroyed' | 'mismatch', updated_at: now }).where('lease_id', 'in', ids).execute();
    }
    const groups = new Map<string, TeardownRecord[]>();
    const release: string[] = [];
    for (const r of records) {
      if (!r.final) { if (!r.keepClaim) release.push(r.lease_id); continue; }
      const key = `${r.final.from}|${r.final.to}|${r.machine === 'mismatch'}`;
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    const events: NewEvent[] = [];
    for (const r of records) (r.events ?? []).forEach((e, i) => events.push({ ...e, lease_id: r.lease_id, token: `${token}:${r.lease_id}:${i}` }));
    for (const [key, group] of groups) {
      const [from, to, mismatch] = key.split('|') as [LeaseStatus, LeaseStatus, string];
      const rows = await trx.updateTable('leases')
        .set({ status: to, claimed_by: null, claim_expires_at: null, updated_at: now, write_token: token, ...(mismatch === 'true' ? MISMATCH_ERROR : {}) })
        .where('id', 'in', group.map((r) => r.lease_id)).where('status', '=', from).where('claimed_by', '=', actor)
        .returning('id').execute();
      const won = new Set(rows.map((r) => r.id));
      for (const r of group) {
        if (!won.has(r.lease_id)) continue;
        finished.push({ lease_id: r.lease_id, from, to });
        events.push({ lease_id: r.lease_id, kind: `lease.${to}` as NewEvent['kind'], data: { from, machine: r.outcome }, token: `${token}:${r.lease_id}:final` });
      }
    }
    if (release.length > 0) {
      await trx.updateTable('leases').set({ claimed_by: null, claim_expires_at: null }).where('id', 'in', release).where('claimed_by', '=', actor).execute();
    }
    // A lease that has ended runs no command and shows no screen: its detached commands' rows
    // (outcomes sealed, up to 512 KB of output each) and its screen mapping go with it.
    const ids = records.map((r) => r.lease_id);
    const ended = trx.selectFrom('leases').select('id').where('id', 'in', ids).where('status', 'in', FINAL_STATUSES);
    await trx.deleteFrom('exec_jobs').where('lease_id', 'in', ended).execute();
    await trx.deleteFrom('lease_screens').where('lease_id', 'in', ended).execute();
    await insertEvents(trx, actor, events);
  });
  if (attempt === 0) return finished;
  const seen = new Set(finished.map((f) => f.lease_id));
  for (const e of await eventsOfCall(db, token)) {
    if (!e.lease_id || seen.has(e.lease_id) || !e.kind.startsWith('lease.')) continue;
    finished.push({ lease_id: e.lease_id, from: (JSON.parse(e.data) as { from: LeaseStatus }).from, to: e.kind.slice('lease.'.length) as LeaseStatus });
  }
  return finished;
}
