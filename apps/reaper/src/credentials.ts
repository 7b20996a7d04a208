/**
 * Revoking what vmhub made for a lease (store lease_credentials): a GitHub App installation token
 * is revoked with `DELETE {api_url}/installation/token`, authenticated by the token itself — so
 * neither the reaper nor a server needs the App's private key to undo it, only the state
 * directory's key that unseals the row. Outcomes: 204 → revoked; 401 → already_invalid (GitHub no
 * longer knows it); a token past its expiry is `expired` without a request. Anything else (5xx,
 * 403, a refused connection, a timeout) is retried with a short backoff, then counted on the row
 * and left open for the next pass — logged, never thrown: a failed revocation never blocks a
 * teardown. The token goes only into the Authorization header of that one request; it is never
 * logged (messages name the credential's id and scope).
 *
 * The server calls `revokeLeaseCredentials` when a lease reaches a terminal state; every reaper
 * pass calls `revokePending` for credentials of leases that are no longer live (a server killed
 * before it revoked, an expiry while no server ran, an earlier failed attempt).
 */
import { LIVE_LEASE_STATES } from '@vmhub/core';
import type { LeaseCredential, Store } from '@vmhub/store';
import type { Logger } from './log.ts';

export interface RevokeOptions {
  log?: Logger;
  /** Attempts per credential in this call (default 3), spaced 250 ms, 500 ms, …. */
  attempts?: number;
  /** Bound of one request (default 10 s). */
  timeoutMs?: number;
}

export type RevokeOutcome = 'revoked' | 'already_invalid' | 'expired' | 'failed';

const GITHUB_HEADERS = { Accept: 'application/vnd.github+json', 'X-GitHub-Api-Version': '2022-11-28', 'User-Agent': 'vmhub' };

/** What revokeToken found; `failed` carries why in `error`. */
export interface TokenRevocation {
  outcome: RevokeOutcome;
  error?: string;
}

/**
 * Revoke one token with its own authority, nothing recorded: `DELETE revoke_url` with it as
 * Bearer, retried on anything but 204/401. For a token nobody recorded (the server failed to
 * store it), and the step revokeCredential records.
 */
export async function revokeToken(secret: Record<string, string>, expiresAt: number, options: RevokeOptions = {}): Promise<TokenRevocation> {
  if (expiresAt <= Date.now()) return { outcome: 'expired' };
  const attempts = options.attempts ?? 3;
  let error = '';
  for (let i = 0; i < attempts; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 250 * 2 ** (i - 1)));
    try {
      const res = await fetch(secret.revoke_url!, {
        method: 'DELETE',
        headers: { ...GITHUB_HEADERS, Authorization: `Bearer ${secret.token}` },
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        redirect: 'error',
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status === 204) return { outcome: 'revoked' };
      if (res.status === 401) return { outcome: 'already_invalid' };
      error = `HTTP ${res.status} from ${new URL(secret.revoke_url!).host}`;
    } catch (err) {
      error = (err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message;
    }
  }
  return { outcome: 'failed', error };
}

/** Revoke one recorded credential (its row updated either way). */
export async function revokeCredential(store: Store, c: LeaseCredential, options: RevokeOptions = {}): Promise<RevokeOutcome> {
  const log = options.log ?? (() => undefined);
  const { outcome, error } = await revokeToken(c.secret, c.expires_at, options);
  if (outcome !== 'failed') {
    await store.credentialRevoked(c.id, outcome);
    if (outcome !== 'expired') log('info', `lease credential ${outcome}`, { lease_id: c.lease_id, credential: c.id, scope: c.scope });
    return outcome;
  }
  await store.credentialRevokeFailed(c.id, error!).catch(() => undefined);
  log('warn', 'lease credential not revoked; the next reaper pass retries', { lease_id: c.lease_id, credential: c.id, scope: c.scope, error, attempts: c.attempts + 1 });
  return 'failed';
}

/** Revoke every open credential of the lease; never throws. */
export async function revokeLeaseCredentials(store: Store, leaseId: string, options: RevokeOptions = {}): Promise<RevokeOutcome[]> {
  let open: LeaseCredential[];
  try {
    open = await store.leaseCredentials(leaseId);
  } catch (err) {
    options.log?.('error', 'lease credentials could not be read; the reaper retries', { lease_id: leaseId, error: (err as Error).message });
    return ['failed'];
  }
  return Promise.all(open.map((c) => revokeCredential(store, c, options)));
}

/** Every open credential of a lease that is no longer live (a reaper pass's last phase). */
export async function revokePending(store: Store, options: RevokeOptions = {}): Promise<{ revoked: number; failed: number }> {
  const pending = await store.pendingRevocations(LIVE_LEASE_STATES);
  const outcomes = await Promise.all(pending.map((c) => revokeCredential(store, c, options)));
  return { revoked: outcomes.filter((o) => o !== 'failed').length, failed: outcomes.filter((o) => o === 'failed').length };
}
