/**
 * The per-lease gate of this process: an operation that replaces a lease's machine under its
 * session (vm_snapshot restore) runs alone, never beside an agent call on that lease.
 *
 *   pass(lease, signal)       — every bind: waits while an exclusive operation runs on the lease;
 *                               true when it waited (what the caller read before may be stale).
 *   enter(lease, signal)      — an agent's VM-bound call (the router's bind): passes, then counts
 *                               as in flight until the returned `leave` is called (once).
 *   exclusive(lease, what, …) — closes the gate (new binds wait at it), waits up to `waitMs` for
 *                               the calls in flight to leave, runs `fn`, opens the gate. Two
 *                               exclusive operations on one lease run one after the other. Calls
 *                               still in flight after `waitMs`: LOCK_CONTENTION, nothing was done.
 *
 * The live view's short reads and a person's input bind without counting: they wait at a closed
 * gate, but one already running when it closes is not waited for (it fails or shows the old
 * screen; the page retries). Calls on other server processes sharing the store are not seen.
 */
import { VmhubError } from '@vmhub/core';

interface Gate {
  /** Agent calls in flight (entered, not yet left). */
  active: number;
  /** Set while an exclusive operation runs; resolves when it ends. */
  closed?: Promise<void>;
  /** Called when `active` drops to 0 while an exclusive operation waits for it. */
  idle?: () => void;
}

export class LeaseGates {
  readonly #gates = new Map<string, Gate>();

  /** Wait until no exclusive operation runs on the lease (or `signal` aborts: its reason is thrown); true when it waited. */
  async pass(leaseId: string, signal: AbortSignal): Promise<boolean> {
    let waited = false;
    for (let g = this.#gates.get(leaseId); g?.closed; g = this.#gates.get(leaseId)) {
      waited = true;
      await untilOrAbort(g.closed, signal);
    }
    return waited;
  }

  /** pass(), then count the call in flight until `leave()`; `waited` as pass() says. */
  async enter(leaseId: string, signal: AbortSignal): Promise<{ leave: () => void; waited: boolean }> {
    const waited = await this.pass(leaseId, signal);
    const g = this.#gate(leaseId);
    g.active++;
    let left = false;
    const leave = (): void => {
      if (left) return;
      left = true;
      g.active--;
      if (g.active === 0) g.idle?.();
      this.#drop(leaseId, g);
    };
    return { leave, waited };
  }

  /** Run `fn` with the lease's gate closed, once the calls in flight have left (see the file comment). */
  async exclusive<T>(leaseId: string, what: string, waitMs: number, fn: () => Promise<T>): Promise<T> {
    let g = this.#gate(leaseId);
    while (g.closed) {
      await g.closed;
      g = this.#gate(leaseId);
    }
    let open!: () => void;
    g.closed = new Promise<void>((resolve) => { open = resolve; });
    try {
      if (g.active > 0) {
        const idle = new Promise<boolean>((resolve) => { g.idle = () => resolve(true); });
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), waitMs); });
        const drained = await Promise.race([idle, late]);
        clearTimeout(timer);
        g.idle = undefined;
        if (!drained) {
          throw new VmhubError('LOCK_CONTENTION', `${what}: ${g.active} call${g.active === 1 ? '' : 's'} on lease ${leaseId} still running after ${waitMs / 1000} s; nothing was done`, {
            hint: 'Retry once the lease\'s other calls have answered (a long vm_wait or vm_exec holds it; detach long commands with vm_exec {detach: true}).',
            details: { lease_id: leaseId, in_flight: g.active },
          });
        }
      }
      return await fn();
    } finally {
      g.closed = undefined;
      open();
      this.#drop(leaseId, g);
    }
  }

  /** Leases with a gate in use (tests, leak checks). */
  /** Calls are in flight on the lease, or an exclusive operation runs on it. */
  busy(leaseId: string): boolean {
    const g = this.#gates.get(leaseId);
    return g !== undefined && (g.active > 0 || g.closed !== undefined);
  }

  get size(): number {
    return this.#gates.size;
  }

  #gate(leaseId: string): Gate {
    let g = this.#gates.get(leaseId);
    if (!g) this.#gates.set(leaseId, (g = { active: 0 }));
    return g;
  }

  #drop(leaseId: string, g: Gate): void {
    if (g.active === 0 && !g.closed && this.#gates.get(leaseId) === g) this.#gates.delete(leaseId);
  }
}

async function untilOrAbort(p: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([p, new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
    })]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
