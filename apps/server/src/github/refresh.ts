/**
 * A lease outliving its GitHub token: installation tokens live one hour, leases up to a day. For
 * each open token of a lease (store lease_credentials, kind github_app_token) a timer fires
 * `margin` before the token lapses; if the lease is still ready and ends after the token would,
 * a fresh token for the same repository and permissions is minted, recorded sealed, installed in
 * the guest over the old one (the same credential file; the adapter's installGitCredential), and
 * the old one revoked. A lease that ends first keeps its token to the end, and release revokes it.
 * Watched when a push clone lands, when a lease is renewed, and at the server's start (leases an
 * earlier process served). A refresh that fails is logged and retried a minute later while the
 * old token still lives; the agent's pushes fail only if it never succeeds.
 */
import { revokeCredential, type Logger } from '@vmhub/reaper';
import type { LeaseCredential, Store } from '@vmhub/store';
import type { GithubApp } from './app.ts';
import { mintRecorded, TOKEN_KIND, USERNAME, type TokenDetails } from './push-grant.ts';

export interface RefreshDeps {
  app: GithubApp;
  store: Store;
  /** Install a credential in the lease's guest (its adapter session's installGitCredential). */
  install(leaseId: string, credential: { repo: string; url: string; username: string; secret: string }): Promise<void>;
  log: Logger;
  /** How long before a token lapses it is replaced. Default 10 minutes. */
  marginMs?: number;
  /** Wait before retrying a failed refresh. Default 60 s. */
  retryMs?: number;
}

export class TokenRefresh {
  readonly #deps: RefreshDeps;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #stopped = false;

  constructor(deps: RefreshDeps) {
    this.#deps = deps;
  }

  /** (Re)arm a timer for every open token of the lease. Never throws. */
  async watch(leaseId: string): Promise<void> {
    let open: LeaseCredential[];
    try {
      open = (await this.#deps.store.leaseCredentials(leaseId)).filter((c) => c.kind === TOKEN_KIND);
    } catch (err) {
      this.#deps.log('warn', 'github token refresh: the lease\'s tokens could not be read', { lease_id: leaseId, error: (err as Error).message });
      return;
    }
    for (const c of open) this.#arm(c, c.expires_at - (this.#deps.marginMs ?? 600_000) - Date.now());
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }

  #arm(c: LeaseCredential, delayMs: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timers.get(c.id));
    const timer = setTimeout(() => {
      this.#timers.delete(c.id);
      void this.#refresh(c);
    }, Math.max(0, Math.min(delayMs, 2 ** 31 - 1)));
    timer.unref();
    this.#timers.set(c.id, timer);
  }

  async #refresh(old: LeaseCredential): Promise<void> {
    const { store, app, log } = this.#deps;
    try {
      const lease = await store.getLease(old.lease_id);
      const still = (await store.leaseCredentials(old.lease_id)).some((c) => c.id === old.id);
      // Over, or ending before the token would: nothing to do (release or the reaper revokes).
      if (!lease || lease.status !== 'ready' || !still || lease.expires_at <= old.expires_at) return;
      const d = old.details as unknown as TokenDetails;
      if (!d.dest) return; // recorded before refreshes existed: left to lapse
      const [owner, repo] = d.repository.split('/') as [string, string];
      const extra = Object.keys(d.permissions).filter((p): p is 'pull_requests' => p === 'pull_requests');
      const fresh = await mintRecorded(app, store, old.lease_id, { owner, repo, url: d.url, scope: old.scope }, d, extra);
      try {
        await this.#deps.install(old.lease_id, { repo: d.dest, url: d.url, username: USERNAME, secret: fresh.secret.token! });
      } catch (err) {
        await revokeCredential(store, fresh, { log });
        throw err;
      }
      log('info', 'github token refreshed for a lease', { lease_id: old.lease_id, credential: fresh.id, replaced: old.id, scope: old.scope, expires_at: new Date(fresh.expires_at).toISOString() });
      await revokeCredential(store, old, { log });
      this.#arm(fresh, fresh.expires_at - (this.#deps.marginMs ?? 600_000) - Date.now());
    } catch (err) {
      log('warn', 'github token refresh failed; retrying', { lease_id: old.lease_id, credential: old.id, scope: old.scope, error: (err as Error).message });
      if (old.expires_at > Date.now() + 5_000) this.#arm(old, this.#deps.retryMs ?? 60_000);
    }
  }
}
