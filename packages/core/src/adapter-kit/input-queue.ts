/**
 * The session's input queue: keyboard, pointer and clipboard actions run one at a time, in call
 * order. Two concurrent vm_type calls would otherwise interleave keystrokes (and, on X11, fight
 * over the keycodes bound for their characters). A failed action does not stop the queue.
 */
export class InputQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Run `fn` after every action queued before it has settled; its result or error is the caller's. */
  serial<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.#tail.then(fn, fn);
    this.#tail = run.catch(() => undefined);
    return run;
  }
}
