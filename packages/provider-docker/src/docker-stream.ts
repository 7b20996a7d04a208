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
