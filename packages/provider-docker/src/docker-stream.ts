/**
 * Demultiplex the stdout/stderr frames of a non-TTY attach or exec stream:
 * an 8-byte header (u8 stream 1=stdout 2=stderr, 3 zero bytes, u32 big-endian size) + payload.
 */
export class DockerDemuxer {
  #buf: Buffer = Buffer.alloc(0);
  readonly #onFrame: (stream: number, data: Buffer) => void;

  constructor(onFrame: (stream: number, data: Buffer) => void) {
    this.#onFrame = onFrame;
  }

  push(chunk: Buffer): void {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    while (this.#buf.length >= 8) {
      const size = this.#buf.readUInt32BE(4);
      if (this.#buf.length < 8 + size) break;
      const stream = this.#buf[0]!;
      const data = this.#buf.subarray(8, 8 + size);
      this.#buf = this.#buf.subarray(8 + size);
      this.#onFrame(stream, data);
    }
  }
}

/** Collect one stream under a byte cap; bytes past the cap are dropped and counted. */
export class CappedBuffer {
  readonly #cap: number;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  truncated = false;

  constructor(cap: number) {
    this.#cap = cap;
  }

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

  toBuffer(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}
