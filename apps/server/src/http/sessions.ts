/**
 * The HTTP transport's MCP sessions: each one an McpServer and its transport, bound to the
 * credential that opened it. Sessions are reclaimed when idle (no request in flight, none for
 * `idleMs`; an open GET event stream counts as a request in flight) and capped at `max`: past the
 * cap a new session is refused (503), never made by evicting someone else's — one agent's leak
 * must not cut off another agent.
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
}

export class HttpSessions {
  readonly #map = new Map<string, HttpSession>();
  readonly #limits: SessionLimits;
  #reserved = 0;
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
  get(id: string): HttpSession | undefined { return this.#map.get(id); }
  all(): HttpSession[] { return [...this.#map.values()]; }

  /** Holds a slot for a session being initialized; false when the cap is reached. */
  reserve(): boolean {
    if (this.#map.size + this.#reserved >= this.#limits.max) this.sweep();
    if (this.#map.size + this.#reserved >= this.#limits.max) return false;
    this.#reserved++;
    return true;
  }

  unreserve(): void { this.#reserved = Math.max(0, this.#reserved - 1); }

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
