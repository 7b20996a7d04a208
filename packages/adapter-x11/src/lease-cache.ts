/**
 * Facts learned once per lease (screen size, which tools the golden has) so a hot action pays
 * one guest command, not two. Dropped on release; a fact that turns out wrong (a resized screen)
 * is refreshed by the caller.
 */
import type { ProbeFacts } from './x11-probe.ts';
import type { Bindings } from './x11-type.ts';

export interface LeaseFacts {
  screen?: Promise<{ width: number; height: number }>;
  probe?: Promise<ProbeFacts>;
  /** Characters vm_type left bound to spare keycodes (see x11-type.ts). */
  bindings?: Bindings;
  /** Tail of this lease's input queue (see serial()). */
  input?: Promise<unknown>;
}

export class LeaseCache {
  readonly #facts = new Map<string, LeaseFacts>();

  get(leaseId: string): LeaseFacts {
    let facts = this.#facts.get(leaseId);
    if (!facts) {
      facts = {};
      this.#facts.set(leaseId, facts);
    }
    return facts;
  }

  /** Memoise a fact; a failed lookup is forgotten so the next call retries. */
  async remember<K extends 'screen' | 'probe'>(leaseId: string, key: K, load: () => NonNullable<LeaseFacts[K]>): Promise<Awaited<NonNullable<LeaseFacts[K]>>> {
    const facts = this.get(leaseId);
    let pending = facts[key];
    if (!pending) {
      pending = load();
      facts[key] = pending;
      pending.catch(() => { if (facts[key] === pending) delete facts[key]; });
    }
    return (await pending) as Awaited<NonNullable<LeaseFacts[K]>>;
  }

  /**
   * Run input actions of one lease one at a time: two concurrent vm_type calls would interleave
   * keystrokes and fight over the keycodes bound for their characters.
   */
  serial<R>(leaseId: string, fn: () => Promise<R>): Promise<R> {
    const facts = this.get(leaseId);
    const run = (facts.input ?? Promise.resolve()).then(fn, fn);
    facts.input = run.catch(() => undefined);
    return run;
  }

  forget<K extends keyof LeaseFacts>(leaseId: string, key: K): void {
    const facts = this.#facts.get(leaseId);
    if (facts) delete facts[key];
  }

  drop(leaseId: string): void {
    this.#facts.delete(leaseId);
  }

  get size(): number {
    return this.#facts.size;
  }
}
