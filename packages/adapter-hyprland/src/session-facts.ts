/**
 * What one lease session learned about its machine: which compositor and how to reach it, the
 * screen layout of the latest screenshot, the probe's findings, the queue that runs input one
 * action at a time. It lives on the session (hyprland-session.ts) and is dropped with it.
 */
import { randomBytes } from 'node:crypto';
import type { Desktop } from './desktop.ts';
import type { Layout } from './layout.ts';
import type { ProbeFacts } from './hyprland-probe.ts';

interface Memoised {
  desktop: Desktop;
  layout: Layout;
  probe: ProbeFacts;
}

export class SessionFacts {
  desktop?: Promise<Desktop>;
  layout?: Promise<Layout>;
  probe?: Promise<ProbeFacts>;
  /** Names this session's pointer holder in the guest (vpointer.ts). */
  readonly holderId = randomBytes(6).toString('hex');
  /** Whether a pointer action ran, so dispose() stops the holder it may have started. */
  holderStarted = false;
  #input: Promise<unknown> = Promise.resolve();

  /** Memoise a fact; a failed lookup is forgotten so the next call retries. */
  async remember<K extends keyof Memoised>(key: K, load: () => Promise<Memoised[K]>): Promise<Memoised[K]> {
    let pending = this[key] as Promise<Memoised[K]> | undefined;
    if (!pending) {
      pending = load();
      (this as { [P in K]?: Promise<Memoised[K]> })[key] = pending;
      pending.catch(() => { if (this[key] === pending) this[key] = undefined; });
    }
    return pending;
  }

  set<K extends keyof Memoised>(key: K, value: Memoised[K]): void {
    (this as { [P in K]?: Promise<Memoised[K]> })[key] = Promise.resolve(value);
  }

  forget(key: keyof Memoised): void {
    this[key] = undefined;
  }

  /** Input actions one at a time, in call order: two vm_type calls would interleave keystrokes. */
  serial<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.#input.then(fn, fn);
    this.#input = run.catch(() => undefined);
    return run;
  }

  clear(): void {
    this.desktop = undefined;
    this.layout = undefined;
    this.probe = undefined;
  }
}
