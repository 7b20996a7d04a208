/**
 * One output stream of a guest command collected under a byte cap (ExecOptions.maxOutputBytes):
 * what comes past the cap is dropped and `truncated` says so. For channel implementations.
 */
export class CappedOutput {
  /** Whether any byte was dropped. */
  truncated = false;
  readonly #cap: number;
  readonly #chunks: Buffer[] = [];
  #size = 0;

  constructor(cap: number) {
    this.#cap = cap;
  }

  /** Keep what fits of `data` (copied: the caller may reuse its buffer). */
  push(data: Buffer): void {
    const room = this.#cap - this.#size;
    if (room <= 0) {
      if (data.length) this.truncated = true;
      return;
    }
    const take = data.length <= room ? data : data.subarray(0, room);
    if (take.length < data.length) this.truncated = true;
    this.#chunks.push(Buffer.from(take));
    this.#size += take.length;
  }

  /** What was kept, in order. */
  toBuffer(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}
