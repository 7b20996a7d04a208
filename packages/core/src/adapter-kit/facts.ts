/**
 * What one lease session learned about its machine (screen size, which tools the golden has, the
 * desktop's environment), so a hot action pays one guest command, not two. One `Facts` per
 * session, dropped with it. Keys and their types are the adapter's: `new Facts<{ screen: Size }>()`.
 */
import { isCancellation } from './errors.ts';

export class Facts<M extends object> {
  #slots = new Map<keyof M, Promise<unknown>>();

  /**
   * The fact, loaded once and shared by concurrent calls; a failed load is forgotten so the next
   * call retries. With the calling call's `signal`: when the load failed because ANOTHER call that
   * shared it was cancelled, this call (not cancelled) loads again instead of failing.
   */
  async remember<K extends keyof M>(key: K, load: () => Promise<M[K]>, signal?: AbortSignal): Promise<M[K]> {
    try {
      return await this.#remember(key, load);
    } catch (err) {
      if (signal && !signal.aborted && isCancellation(err)) return this.#remember(key, load);
      throw err;
    }
  }

  #remember<K extends keyof M>(key: K, load: () => Promise<M[K]>): Promise<M[K]> {
    let pending = this.#slots.get(key) as Promise<M[K]> | undefined;
    if (!pending) {
      const fresh = load();
      pending = fresh;
      this.#slots.set(key, fresh);
      fresh.catch(() => { if (this.#slots.get(key) === fresh) this.#slots.delete(key); });
    }
    return pending;
  }

  /** The fact if it is known or being loaded; undefined otherwise. Loads nothing. */
  peek<K extends keyof M>(key: K): Promise<M[K]> | undefined {
    return this.#slots.get(key) as Promise<M[K]> | undefined;
  }

  /** Keep a value learned on the way (a screenshot's size, a settled probe). */
  set<K extends keyof M>(key: K, value: M[K]): void {
    this.#slots.set(key, Promise.resolve(value));
  }

  /** Forget a fact that turned out wrong (a resized screen): the next call learns it again. */
  forget(key: keyof M): void {
    this.#slots.delete(key);
  }

  /** End of the session: nothing learned here may serve another one. */
  clear(): void {
    this.#slots.clear();
  }
}
