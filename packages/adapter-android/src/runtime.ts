/**
 * What every capability function gets: the lease's options, what the session learned about the
 * device (screen size, which tools it has), and a way to reach it. One runtime per lease session
 * (android-session.ts); it ends with the session, so nothing is keyed by lease id.
 */
import type { AdapterContext } from '@vmhub/core';
import { openDevice, type Device } from './device.ts';
import type { AndroidOptions } from './options.ts';
import type { Size } from './screen-parse.ts';
import type { ProbeFacts } from './android-probe.ts';

export class SessionFacts {
  screen?: Promise<Size>;
  probe?: Promise<ProbeFacts>;
  #input: Promise<unknown> = Promise.resolve();

  /** Memoise a fact; a failed lookup is forgotten so the next call retries. */
  remember<K extends 'screen' | 'probe'>(key: K, load: () => NonNullable<SessionFacts[K]>): NonNullable<SessionFacts[K]> {
    const slots = this as unknown as Record<K, Promise<unknown> | undefined>;
    let pending = slots[key];
    if (!pending) {
      const fresh = load() as Promise<unknown>;
      pending = fresh;
      slots[key] = fresh;
      fresh.catch(() => { if (slots[key] === fresh) slots[key] = undefined; });
    }
    return pending as NonNullable<SessionFacts[K]>;
  }

  /** Input actions run one at a time, in call order (two vm_type calls must not interleave). */
  serial<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.#input.then(fn, fn);
    this.#input = run.catch(() => undefined);
    return run;
  }

  clear(): void {
    this.screen = undefined;
    this.probe = undefined;
  }
}

export interface AndroidRuntime {
  readonly options: AndroidOptions;
  readonly facts: SessionFacts;
  device(ctx: AdapterContext): Promise<Device>;
}

export function createRuntime(options: AndroidOptions): AndroidRuntime {
  return { options, facts: new SessionFacts(), device: (ctx) => openDevice(ctx, options) };
}
