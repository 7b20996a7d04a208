/**
 * Who drives a lease right now: the agent (default) or a person who took over in the live view,
 * and whether that person lets the agent's commands and file writes run meanwhile
 * (`allow_commands_and_files`, set with each take-over; input tools wait regardless).
 * One per LeaseSession, in this process only: it ends with the lease's session, so a released
 * lease's control is gone and a restarted server starts every lease with the agent driving.
 */
import type { HumanControl } from '@vmhub/core/router';

/** Longest hand-back note (characters). */
export const MAX_NOTE = 2000;

export class LeaseControl {
  #since: string | undefined;
  #allow = false;
  #note: string | undefined;

  get human(): boolean {
    return this.#since !== undefined;
  }

  /** The router's view: set while a person holds the lease. */
  held(): HumanControl | undefined {
    return this.#since === undefined ? undefined : { human: true, since: this.#since, allow_commands_and_files: this.#allow };
  }

  /** A note handed back and not yet delivered to the agent. */
  get note(): string | undefined {
    return this.#note;
  }

  get since(): string | undefined {
    return this.#since;
  }

  /** Whether the person lets commands and file writes run while they hold the lease (false when nobody does). */
  get allowCommandsAndFiles(): boolean {
    return this.#since !== undefined && this.#allow;
  }

  /**
   * Idempotent: a second take-over keeps the first one's time and sets the allowance it gives
   * (so the person can change their mind while holding). `changed`: a new take-over;
   * `allowChanged`: the allowance differs from before.
   */
  takeover(options: { allowCommandsAndFiles?: boolean } = {}): { since: string; changed: boolean; allowChanged: boolean } {
    const allow = options.allowCommandsAndFiles === true;
    const allowChanged = this.#since !== undefined && allow !== this.#allow;
    this.#allow = allow;
    if (this.#since !== undefined) return { since: this.#since, changed: false, allowChanged };
    this.#since = new Date().toISOString();
    return { since: this.#since, changed: true, allowChanged: false };
  }

  /** Back to the agent; a note (when given) waits for the agent's next result. */
  handback(note?: string): { changed: boolean } {
    const changed = this.#since !== undefined;
    this.#since = undefined;
    this.#allow = false;
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
