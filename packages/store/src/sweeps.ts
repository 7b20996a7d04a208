/**
 * Whole-table lifecycle work (what a reaper pass does before it tears anything down), as few
 * statements as possible: one bulk conditional UPDATE per source status, whose WHERE *is* the
 * reason (`expires_at < now`), so a lease renewed or released a moment earlier no longer
 * matches and is never expired or failed by a stale read; the events go in the same transaction.
 */
import type { Kysely, Selectable } from 'kysely';
import { eventsOfCall, insertEvents, type NewEvent } from './events.ts';
import { assertTransition, FINAL_STATUSES, LEASE_STATUSES, OWNING_STATUSES, SETTLED_MACHINE_STATES, TRANSITIONS, type LeaseStatus } from './lifecycle.ts';
import { LEASE_COLUMNS, type Database, type LeaseTable } from './schema.ts';

type LeaseRow = Selectable<LeaseTable>;

export interface ExpiredLease {
  id: string;
  from: LeaseStatus;
  /** `max_lifetime` when the hard cap passed, else `ttl`. */
  reason: 'ttl' | 'max_lifetime';
  expires_at: number;
  max_expires_at: number;
}

export interface FailedLease {
  from: LeaseStatus;
  lease: LeaseRow;
  /** Past its deadline, or its provisioning process died (its claim lapsed). */
  reason: 'deadline' | 'provisioner_died';
}

/** Every status that may expire (the table's sources of `expired`). */
const EXPIRABLE = LEASE_STATUSES.filter((s) => (TRANSITIONS[s] as readonly string[]).includes('expired'));
/** Still being brought up: these have a deadline. */
const PROVISIONING: readonly LeaseStatus[] = ['provisioning', 'starting'];

/**
 * `token` stamps the rows and events of this call, the same on every attempt; on a retry
 * (`attempt` > 0) the leases an earlier attempt expired before its answer was lost are read back
 * from its events and returned too.
 */
export async function expireDue(db: Kysely<Database>, now: number, actor: string, token: string, attempt = 0): Promise<ExpiredLease[]> {
  assertTransition('(sweep)', EXPIRABLE, 'expired');
  const expired: ExpiredLease[] = [];
  await db.transaction().execute(async (trx) => {
    for (const from of EXPIRABLE) {
      const rows = await trx.updateTable('leases')
        .set({ status: 'expired', updated_at: Date.now(), write_token: token })
        .where('status', '=', from)
        .where((eb) => eb.or([eb('expires_at', '<', now), eb('max_expires_at', '<', now)]))
        .returning(['id', 'expires_at', 'max_expires_at'])
        .execute();
      for (const r of rows) expired.push({ ...r, from, reason: r.max_expires_at < now ? 'max_lifetime' : 'ttl' });
    }
    await insertEvents(trx, actor, expired.map((e): NewEvent => ({ lease_id: e.id, kind: 'lease.expired', data: { from: e.from, reason: e.reason, expires_at: e.expires_at, max_expires_at: e.max_expires_at }, token: `${token}:${e.id}` })));
  });
  if (attempt === 0) return expired;
  const seen = new Set(expired.map((e) => e.id));
  for (const e of await eventsOfCall(db, token)) {
    if (e.kind !== 'lease.expired' || !e.lease_id || seen.has(e.lease_id)) continue;
    const d = JSON.parse(e.data) as Omit<ExpiredLease, 'id'>;
    expired.push({ id: e.lease_id, from: d.from, reason: d.reason, expires_at: d.expires_at, max_expires_at: d.max_expires_at });
  }
  return expired;
}

/** `token` and `attempt` as in expireDue. */
export async function failStuck(db: Kysely<Database>, now: number, fallbackCreatedBefore: number, actor: string, token: string, attempt = 0): Promise<FailedLease[]> {
  assertTransition('(sweep)', PROVISIONING, 'failed');
  // The message names the component that failed the lease: `reaper:<host>:…` → [reaper].
  const component = actor.split(':')[0] || 'store';
  const failed: FailedLease[] = [];
  await db.transaction().execute(async (trx) => {
    for (const from of PROVISIONING) {
      const rows = await trx.updateTable('leases')
        .set({ status: 'failed', error_code: 'BOOT_TIMEOUT', error_message: `[vmhub] [${component}] lease stuck in ${from} past its deadline; its machine is destroyed: create a new lease`, updated_at: Date.now(), write_token: token })
        .where('status', '=', from)
        .where((eb) => eb.or([
          eb.and([eb('deadline_at', 'is not', null), eb('deadline_at', '<', now)]),
          eb.and([eb('deadline_at', 'is', null), eb('created_at', '<', fallbackCreatedBefore)]),
        ]))
        .returning(LEASE_COLUMNS)
        .execute();
      for (const lease of rows) failed.push({ from, lease, reason: 'deadline' });
      // The process provisioning it renews a claim while it works: a lapsed one means it died.
      const orphaned = await trx.updateTable('leases')
        .set({ status: 'failed', error_code: 'PROVISION_FAILED', error_message: `[vmhub] [${component}] the process provisioning this lease stopped (its claim lapsed) while it was ${from}; its machine is destroyed: create a new lease`, claimed_by: null, claim_expires_at: null, updated_at: Date.now(), write_token: token })
        .where('status', '=', from)
        .where('claim_expires_at', 'is not', null)
        .where('claim_expires_at', '<', now)
        .returning(LEASE_COLUMNS)
        .execute();
      for (const lease of orphaned) failed.push({ from, lease, reason: 'provisioner_died' });
    }
    await insertEvents(trx, actor, failed.map((f): NewEvent => ({ lease_id: f.lease.id, kind: 'lease.failed', data: { from: f.from, reason: f.reason, deadline_at: f.lease.deadline_at }, token: `${token}:${f.lease.id}` })));
  });
  if (attempt === 0) return failed;
  const seen = new Set(failed.map((f) => f.lease.id));
  const lost = (await eventsOfCall(db, token)).filter((e) => e.kind === 'lease.failed' && e.lease_id && !seen.has(e.lease_id));
  if (lost.length === 0) return failed;
  const rows = new Map((await db.selectFrom('leases').select(LEASE_COLUMNS).where('id', 'in', lost.map((e) => e.lease_id!)).execute()).map((r) => [r.id, r]));
  for (const e of lost) {
    const lease = rows.get(e.lease_id!);
    const d = JSON.parse(e.data) as { from: LeaseStatus; reason: FailedLease['reason'] };
    if (lease) failed.push({ from: d.from, lease, reason: d.reason });
  }
  return failed;
}

export function stuckReleases(db: Kysely<Database>, before: number): Promise<LeaseRow[]> {
  return db.selectFrom('leases').select(LEASE_COLUMNS)
    .where('status', '=', 'releasing')
    .where((eb) => eb.or([
      eb.and([eb('claim_expires_at', 'is not', null), eb('claim_expires_at', '<', before)]),
      eb.and([eb('claim_expires_at', 'is', null), eb('updated_at', '<', before)]),
    ]))
    .execute();
}

export function lingering(db: Kysely<Database>, updatedBefore: number): Promise<LeaseRow[]> {
  return db.selectFrom('leases')
    .innerJoin('machines', 'machines.lease_id', 'leases.id')
    .select(LEASE_COLUMNS.map((c) => `leases.${c}` as const))
    .where('leases.status', 'in', [...FINAL_STATUSES])
    .where('machines.state', 'not in', [...SETTLED_MACHINE_STATES])
    .where('leases.updated_at', '<', updatedBefore)
    .execute();
}

export async function providersInUse(db: Kysely<Database>): Promise<Set<string>> {
  const fromLeases = await db.selectFrom('leases').select('provider').distinct().where('status', 'not in', [...FINAL_STATUSES]).execute();
  const fromMachines = await db.selectFrom('machines').select('provider').distinct().where('state', 'not in', [...SETTLED_MACHINE_STATES]).execute();
  return new Set([...fromLeases, ...fromMachines].map((r) => r.provider));
}

export async function ownedIdentities(db: Kysely<Database>): Promise<Set<string>> {
  const rows = await db.selectFrom('leases').select('identity').where('status', 'in', [...OWNING_STATUSES]).execute();
  return new Set(rows.map((r) => r.identity));
}

export async function leasesByIdentity(db: Kysely<Database>, identities: readonly string[]): Promise<Map<string, LeaseRow>> {
  const out = new Map<string, LeaseRow>();
  for (let i = 0; i < identities.length; i += 500) {
    const rows = await db.selectFrom('leases').select(LEASE_COLUMNS).where('identity', 'in', identities.slice(i, i + 500)).execute();
    for (const r of rows) out.set(r.identity, r);
  }
  return out;
}
