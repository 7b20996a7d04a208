/**
 * The HTTP transport's MCP sessions: each one an McpServer and its transport, bound to the
 * credential that opened it. Sessions are reclaimed when idle (no request in flight, none for
 * `idleMs`; an open GET event stream counts as a request in flight) and capped twice: at `max`
 * in all (http.max_sessions, refused 503) and at `perPrincipal` for any one principal
 * (http.max_sessions_per_principal, refused 429), so one agent cannot take every slot. A new
 * session past a cap is refused, never made by evicting someone else's — one agent's leak must
 * not cut off another agent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { log } from '../log.ts';
import type { Credential } from './auth.ts';

export interface HttpSession {
  id: string;
  principal: string;
  /** The credential that opened it; undefined under the loopback no-auth opt-out. */
  credential: Credential | undefined;
  /** Hands one request of this session to its transport. */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void>;
  close(): Promise<void>;
  lastSeen: number;
  active: number;
}

export interface SessionLimits {
  idleMs: number;
  max: number;
  /** Open sessions one principal may hold (reserved ones included); at most `max` in effect. */
  perPrincipal: number;
}

/** Why `reserve` refused: the cap reached, its config key, and the sessions counted against it. */
export interface SessionRefusal {
  cap: 'http.max_sessions' | 'http.max_sessions_per_principal';
  /** 503 when the server is full, 429 when this principal holds its share. */
  status: 503 | 429;
  limit: number;
  open: number;
}

export class HttpSessions {
  readonly #map = new Map<string, HttpSession>();
  readonly #limits: SessionLimits;
  /** Slots held for initializations in progress, by principal. */
  readonly #reserved = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  /** Sessions closed for idleness since start (for logs and tests). */
  reclaimed = 0;

  constructor(limits: SessionLimits) {
    this.#limits = limits;
    // Sweep at least twice per idle period (so a session lives at most 1.5 × idle), at most every 30 s.
    const every = Math.min(30_000, Math.max(250, Math.floor(limits.idleMs / 2)));
    this.#timer = setInterval(() => void this.sweep(), every);
    this.#timer.unref();
  }

  get size(): number { return this.#map.size; }
  get max(): number { return this.#limits.max; }
  get perPrincipal(): number { return this.#limits.perPrincipal; }
  get(id: string): HttpSession | undefined { return this.#map.get(id); }
  all(): HttpSession[] { return [...this.#map.values()]; }

  /** Open sessions of `principal`, reserved ones included. */
  held(principal: string): number {
    let n = this.#reserved.get(principal) ?? 0;
    for (const s of this.#map.values()) if (s.principal === principal) n++;
    return n;
  }

  /**
   * Holds a slot for a session `principal` is initializing; undefined when held (give it back
   * with `unreserve`), else which cap refused it. Idle sessions are swept before refusing.
   */
  reserve(principal: string): SessionRefusal | undefined {
    let refusal = this.#refusal(principal);
    if (refusal) {
      this.sweep();
      refusal = this.#refusal(principal);
    }
    if (!refusal) this.#reserved.set(principal, (this.#reserved.get(principal) ?? 0) + 1);
    return refusal;
  }

  unreserve(principal: string): void {
    const n = (this.#reserved.get(principal) ?? 0) - 1;
    if (n > 0) this.#reserved.set(principal, n);
    else this.#reserved.delete(principal);
  }

  #refusal(principal: string): SessionRefusal | undefined {
    let reserved = 0;
    for (const n of this.#reserved.values()) reserved += n;
    const total = this.#map.size + reserved;
    if (total >= this.#limits.max) return { cap: 'http.max_sessions', status: 503, limit: this.#limits.max, open: total };
    const mine = this.held(principal);
    if (mine >= this.#limits.perPrincipal) return { cap: 'http.max_sessions_per_principal', status: 429, limit: this.#limits.perPrincipal, open: mine };
    return undefined;
  }

  add(session: HttpSession): void { this.#map.set(session.id, session); }
  delete(id: string): void { this.#map.delete(id); }

  /** A request on `session` is in flight until `res` closes. */
  track(session: HttpSession, res: ServerResponse): void {
    session.active++;
    session.lastSeen = Date.now();
    res.once('close', () => { session.active--; session.lastSeen = Date.now(); });
  }

  /** Closes idle sessions now; returns how many. */
  sweep(now = Date.now()): number {
    let n = 0;
    for (const s of this.#map.values()) {
      if (s.active > 0 || now - s.lastSeen < this.#limits.idleMs) continue;
      this.#map.delete(s.id);
      void s.close().catch(() => undefined);
      n++;
    }
    if (n > 0) {
      this.reclaimed += n;
      log('info', 'http sessions reclaimed', { idle: n, open: this.#map.size, reclaimed_total: this.reclaimed });
    }
    return n;
  }

  /** Closes every session `drop` selects (revoked credentials); returns how many. */
  closeWhere(drop: (s: HttpSession) => boolean): number {
    let n = 0;
    for (const s of this.#map.values()) {
      if (!drop(s)) continue;
      this.#map.delete(s.id);
      void s.close().catch(() => undefined);
      n++;
    }
    return n;
  }

  async closeAll(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    const all = [...this.#map.values()];
    this.#map.clear();
    await Promise.allSettled(all.map((s) => s.close()));
  }
}

/** The JSON-RPC error message of a refused initialize: which cap, how full, what to do. */
export function refusalMessage(r: SessionRefusal, principal: string, idleSeconds: number): string {
  const remedy = `close sessions you no longer use (DELETE /mcp with their mcp-session-id), or retry after idle ones are closed (http.session_idle_seconds = ${idleSeconds})`;
  return r.cap === 'http.max_sessions'
    ? `this server already has ${r.open} open MCP sessions, its limit (http.max_sessions = ${r.limit}): ${remedy}`
    : `principal "${principal}" already has ${r.open} open MCP sessions, its limit (http.max_sessions_per_principal = ${r.limit}; other principals can still open theirs): ${remedy}`;
}
