/**
 * The live view's browser sign-ins: what the `vmhub_session` cookie carries instead of a token.
 * Contract:
 *   - an id is 32 random bytes (base64url), unrelated to any token; only its SHA-256 is kept, as
 *     the key of a map in this process's memory, so a server restart ends every sign-in;
 *   - an id stands for the credential (principal and token digest) it was made with, for /ui/ and
 *     /api/ only — http.ts never reads a cookie on /mcp, which takes `Authorization: Bearer` alone;
 *   - it ends `idleMs` after its last request, `maxMs` after it was made however busy, and as soon
 *     as its credential is no longer accepted (a token removed or changed on SIGHUP);
 *   - one principal holds at most MAX_PER_PRINCIPAL: one more sign-in ends its oldest.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Credential } from '../http/auth.ts';

export const MAX_PER_PRINCIPAL = 32;

export interface UiSessionLimits {
  /** http.ui_session_idle_seconds, in ms. */
  idleMs: number;
  /** http.ui_session_max_seconds, in ms. */
  maxMs: number;
}

interface Entry {
  credential: Credential;
  created: number;
  lastSeen: number;
}

export class UiSessions {
  readonly #map = new Map<string, Entry>();
  readonly #limits: UiSessionLimits;
  readonly #now: () => number;

  constructor(limits: UiSessionLimits, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  get size(): number { return this.#map.size; }
  /** Seconds a new sign-in lives at most: the cookie's Max-Age. */
  get maxAgeSeconds(): number { return Math.max(1, Math.floor(this.#limits.maxMs / 1000)); }

  /** A new sign-in for `credential`; returns the id for the cookie. */
  create(credential: Credential): string {
    this.#sweep();
    const mine = [...this.#map].filter(([, e]) => e.credential.principal === credential.principal).sort((a, b) => a[1].created - b[1].created);
    for (const [key] of mine.slice(0, Math.max(0, mine.length - MAX_PER_PRINCIPAL + 1))) this.#map.delete(key);
    const id = randomBytes(32).toString('base64url');
    const now = this.#now();
    this.#map.set(digest(id), { credential, created: now, lastSeen: now });
    return id;
  }

  /**
   * The credential of a live sign-in, its idle clock restarted; undefined (and the entry dropped)
   * when `id` is unknown, idle or past its cap, or its credential fails `valid`.
   */
  use(id: string, valid: (c: Credential) => boolean): Credential | undefined {
    const key = digest(id);
    const entry = this.#map.get(key);
    if (!entry) return undefined;
    const now = this.#now();
    if (this.#expired(entry, now) || !valid(entry.credential)) {
      this.#map.delete(key);
      return undefined;
    }
    entry.lastSeen = now;
    return entry.credential;
  }

  /** Ends one sign-in (a new one replacing it). */
  end(id: string): void { this.#map.delete(digest(id)); }

  /** Ends every sign-in whose credential `drop` selects (tokens revoked); returns how many. */
  endWhere(drop: (c: Credential) => boolean): number {
    let n = 0;
    for (const [key, e] of this.#map) if (drop(e.credential)) { this.#map.delete(key); n++; }
    return n;
  }

  #expired(e: Entry, now: number): boolean {
    return now - e.lastSeen >= this.#limits.idleMs || now - e.created >= this.#limits.maxMs;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [key, e] of this.#map) if (this.#expired(e, now)) this.#map.delete(key);
  }
}

function digest(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}
