/**
 * Who drives a lease right now: the agent (default) or a person who took over in the live view.
 * One per LeaseSession, in this process only: it ends with the lease's session, so a released
 * lease's control is gone and a restarted server starts every lease with the agent driving.
 */
import type { HumanControl } from '@vmhub/core/router';

/** Longest hand-back note (characters). */
export const MAX_NOTE = 2000;

export class LeaseControl {
  #since: string | undefined;
  #note: string | undefined;

  get human(): boolean {
    return this.#since !== undefined;
  }

  /** The router's view: set while a person holds the lease. */
  held(): HumanControl | undefined {
    return this.#since === undefined ? undefined : { human: true, since: this.#since };
  }

  /** A note handed back and not yet delivered to the agent. */
  get note(): string | undefined {
    return this.#note;
  }

  get since(): string | undefined {
    return this.#since;
  }

  /** Idempotent: a second take-over keeps the first one's time. `changed` says whether it was new. */
  takeover(): { since: string; changed: boolean } {
    if (this.#since !== undefined) return { since: this.#since, changed: false };
    this.#since = new Date().toISOString();
    return { since: this.#since, changed: true };
  }

  /** Back to the agent; a note (when given) waits for the agent's next result. */
  handback(note?: string): { changed: boolean } {
    const changed = this.#since !== undefined;
    this.#since = undefined;
    if (changed && note !== undefined && note.length > 0) this.#note = note;
    return { changed };
  }

  /** The pending note, consumed. */
  takeNote(): string | undefined {
    const note = this.#note;
    this.#note = undefined;
    return note;
  }
}
