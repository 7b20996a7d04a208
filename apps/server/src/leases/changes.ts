/**
 * This process's lease changes: provisioning says when it moved a lease (a stage, a transition),
 * and a bounded wait (wait.ts) wakes on it at once instead of at its next poll of the store.
 */
import { EventEmitter } from 'node:events';

export class LeaseChanges {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  changed(leaseId: string): void {
    this.#emitter.emit(leaseId);
  }

  /** Resolves on this process's next change to the lease, after `ms`, or when `signal` aborts. */
  next(leaseId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => { clearTimeout(timer); this.#emitter.off(leaseId, done); signal.removeEventListener('abort', done); resolve(); };
      const timer = setTimeout(done, Math.max(0, ms));
      this.#emitter.once(leaseId, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
