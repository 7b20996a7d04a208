/**
 * What one lease session learned about its machine, so a hot action pays one guest command, not
 * two: the screen size, which tools the golden has, the keycodes vm_type bound. It lives on the
 * session (x11-session.ts) and is dropped with it. A fact that turns out wrong (a resized screen)
 * is forgotten by the caller and learned again.
 */
import type { FramebufferSource } from '@vmhub/core';
import type { ProbeFacts } from './x11-probe.ts';
import type { Size } from './x11-screen-size.ts';
import type { Bindings } from './x11-type.ts';

interface Memoised {
  screen: Size;
  probe: ProbeFacts;
  framebuffer: FramebufferSource | undefined;
}

export class SessionFacts {
  screen?: Promise<Size>;
  probe?: Promise<ProbeFacts>;
  /** The provider's host framebuffer file (x11-framebuffer.ts), asked once. */
  framebuffer?: Promise<FramebufferSource | undefined>;
  /** Characters vm_type left bound to spare keycodes (see x11-type.ts). */
  readonly bindings: Bindings = { byChar: new Map() };
  /** Tail of the session's input queue (see serial()). */
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

  forget(key: keyof Memoised): void {
    this[key] = undefined;
  }

  /**
   * Run input actions one at a time, in call order: two concurrent vm_type calls would interleave
   * keystrokes and fight over the keycodes bound for their characters.
   */
  serial<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.#input.then(fn, fn);
    this.#input = run.catch(() => undefined);
    return run;
  }

  /** End of the session: nothing learned here may serve another one. */
  clear(): void {
    this.screen = undefined;
    this.probe = undefined;
    this.framebuffer = undefined;
    this.bindings.byChar.clear();
  }
}
