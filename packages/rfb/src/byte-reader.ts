/**
 * Exact-length reads over a Duplex. RFB has no framing: every message is parsed field by field,
 * so the client asks for n bytes and waits until they have arrived. Chunks are kept in a list and
 * joined only when a read spans them (a raw rectangle of several MiB arrives in many chunks).
 */
import type { Duplex } from 'node:stream';
import { RfbError } from './errors.ts';

export class ByteReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private want = 0;
  private wake: (() => void) | undefined;
  private ended: RfbError | undefined;

  constructor(socket: Duplex) {
    socket.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.length += chunk.length;
      if (this.wake && this.length >= this.want) this.fire();
    });
    const end = (why: string) => () => this.fail(new RfbError('CLOSED', why));
    socket.once('end', end('the server closed the connection'));
    socket.once('close', end('the connection closed'));
    socket.on('error', (err: Error) => this.fail(new RfbError('CLOSED', `connection error: ${err.message}`, { cause: err })));
  }

  /** Make every pending and later read fail (close, abort, timeout). */
  fail(err: RfbError): void {
    this.ended ??= err;
    if (this.wake) this.fire();
  }

  get buffered(): number {
    return this.length;
  }

  private fire(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Exactly n bytes (n may be 0). */
  async read(n: number): Promise<Buffer> {
    if (this.length < n) {
      if (this.ended) throw this.ended;
      this.want = n;
      await new Promise<void>((ok) => { this.wake = ok; });
      if (this.length < n) throw this.ended ?? new RfbError('CLOSED', 'the connection closed');
    }
    return this.take(n);
  }

  /** Synchronous take when the bytes are already buffered (checked by the caller). */
  take(n: number): Buffer {
    const first = this.chunks[0];
    let out: Buffer;
    if (n === 0) return Buffer.alloc(0);
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let off = 0;
      while (off < n) {
        const c = this.chunks[0];
        const k = Math.min(c.length, n - off);
        c.copy(out, off, 0, k);
        off += k;
        if (k === c.length) this.chunks.shift();
        else this.chunks[0] = c.subarray(k);
      }
    }
    this.length -= n;
    return out;
  }

  async u8(): Promise<number> { return (await this.read(1))[0]; }
  async u16(): Promise<number> { return (await this.read(2)).readUInt16BE(0); }
  async u32(): Promise<number> { return (await this.read(4)).readUInt32BE(0); }
  async s32(): Promise<number> { return (await this.read(4)).readInt32BE(0); }

  /** A u32 length then that many bytes as Latin-1 (reason strings, names, cut text). */
  async string(limit = 1 << 24): Promise<string> {
    const n = await this.u32();
    if (n > limit) throw new RfbError('PROTOCOL', `a string of ${n} bytes is over the ${limit}-byte limit`);
    return (await this.read(n)).toString('latin1');
  }

  /** Whatever is buffered, removed (for handing the stream on to a pipe). */
  drain(): Buffer {
    return this.take(this.length);
  }
}
