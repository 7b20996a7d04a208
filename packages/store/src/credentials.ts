/**
 * Lease credentials (table lease_credentials, migration 7): secrets vmhub made for one lease that
 * must be undone when it ends — today a GitHub App installation token minted for one repository
 * (vm_clone_repo {push: true}). The secret part (the token and where to revoke it) is sealed
 * (sealed.ts); `scope` (e.g. `github.com/owner/repo`) and `details` (what a refresh needs: the
 * installation, the permissions, the guest path) are plain and hold nothing secret. A credential
 * is open until `revoked_at` is set, with the outcome: revoked, already_invalid (the issuer no
 * longer knew it) or expired (it lapsed before anyone had to). Failed revocations count attempts
 * and keep the last error, and stay open for the next pass (the reaper's sweep).
 */
import type { Kysely } from 'kysely';
import type { LeaseStatus } from './lifecycle.ts';
import type { Database, LeaseCredentialTable } from './schema.ts';

export type CredentialOutcome = 'revoked' | 'already_invalid' | 'expired';

export interface NewLeaseCredential {
  kind: string;
  scope: string;
  /** Sealed before it is stored. */
  secret: Record<string, string>;
  details?: Record<string, unknown>;
  /** ms */
  expires_at: number;
}

export interface LeaseCredential {
  id: string;
  lease_id: string;
  kind: string;
  scope: string;
  details: Record<string, unknown>;
  expires_at: number;
  created_at: number;
  revoked_at: number | undefined;
  outcome: CredentialOutcome | undefined;
  attempts: number;
  last_error: string | undefined;
  /** Unsealed on read; never log it. */
  secret: Record<string, string>;
}

export function fromRow(row: LeaseCredentialTable, open: (sealed: string, id: string) => string): LeaseCredential {
  return {
    id: row.id,
    lease_id: row.lease_id,
    kind: row.kind,
    scope: row.scope,
    details: JSON.parse(row.details) as Record<string, unknown>,
    expires_at: row.expires_at,
    created_at: row.created_at,
    revoked_at: row.revoked_at ?? undefined,
    outcome: (row.outcome ?? undefined) as CredentialOutcome | undefined,
    attempts: row.attempts,
    last_error: row.last_error ?? undefined,
    secret: JSON.parse(open(row.sealed, row.id)) as Record<string, string>,
  };
}

export async function insert(db: Kysely<Database>, row: LeaseCredentialTable): Promise<void> {
  // A retry whose first attempt committed finds its own row (same id) and writes nothing twice.
  await db.insertInto('lease_credentials').values(row).onConflict((oc) => oc.column('id').doNothing()).execute();
}

/** The lease's credentials not yet revoked (oldest first). */
export function openOf(db: Kysely<Database>, leaseId: string): Promise<LeaseCredentialTable[]> {
  return db.selectFrom('lease_credentials').selectAll().where('lease_id', '=', leaseId).where('revoked_at', 'is', null).orderBy('created_at').execute();
}

/** Every credential of the lease, revoked or not (oldest first). */
export function allOf(db: Kysely<Database>, leaseId: string): Promise<LeaseCredentialTable[]> {
  return db.selectFrom('lease_credentials').selectAll().where('lease_id', '=', leaseId).orderBy('created_at').execute();
}

/** Open credentials of leases that are over (or no longer live): what a sweep still has to revoke. */
export function pending(db: Kysely<Database>, liveStates: readonly LeaseStatus[], limit: number): Promise<LeaseCredentialTable[]> {
  return db.selectFrom('lease_credentials').innerJoin('leases', 'leases.id', 'lease_credentials.lease_id')
    .selectAll('lease_credentials')
    .where('lease_credentials.revoked_at', 'is', null)
    .where('leases.status', 'not in', [...liveStates])
    .orderBy('lease_credentials.created_at').limit(limit).execute();
}

export async function markRevoked(db: Kysely<Database>, id: string, outcome: CredentialOutcome, at: number): Promise<void> {
  await db.updateTable('lease_credentials').set({ revoked_at: at, outcome }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

export async function noteFailure(db: Kysely<Database>, id: string, message: string): Promise<void> {
  await db.updateTable('lease_credentials').set((eb) => ({ attempts: eb('attempts', '+', 1), last_error: message.slice(0, 500) })).where('id', '=', id).execute();
}
