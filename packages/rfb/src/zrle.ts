/**
 * ZRLE (encoding 16, RFC 6143 §7.7.6). Each rectangle is a u32 length and that many bytes of one
 * zlib stream that lasts the whole connection (the server flushes it at each rectangle's end),
 * tiled 64×64 left to right, top to bottom. Each tile starts with a sub-encoding byte: 0 raw,
 * 1 solid, 2–16 packed palette (1, 2 or 4 bits an index, rows padded to a byte), 128 plain RLE,
 * 130–255 palette RLE. Pixels are CPIXELs: for the client's 32-bpp depth-24 format, 3 bytes
 * R, G, B.
 */
import { constants, createInflate, type Inflate } from 'node:zlib';
import { RfbError } from './errors.ts';
import type { Framebuffer } from './framebuffer.ts';

/** One inflate stream per connection; each call returns all output for that input. */
export class StreamInflater {
  private readonly z: Inflate = createInflate({ chunkSize: 256 * 1024 });
  private out: Buffer[] = [];
  private failed: Error | undefined;

  constructor() {
    this.z.on('data', (c: Buffer) => this.out.push(c));
    this.z.on('error', (err: Error) => { this.failed = err; });
  }

  inflate(input: Buffer): Promise<Buffer> {
    return new Promise((ok, fail) => {
      this.z.write(input);
      this.z.flush(constants.Z_SYNC_FLUSH, () => {
        // 'data' for this flush may still be queued for the next tick: collect after it.
        setImmediate(() => {
          if (this.failed) return fail(new RfbError('PROTOCOL', `ZRLE zlib stream: ${this.failed.message}`, { cause: this.failed }));
          const out = this.out.length === 1 ? this.out[0] : Buffer.concat(this.out);
          this.out = [];
          ok(out);
        });
      });
    });
  }

  close(): void {
    this.z.destroy();
  }
}

export function decodeZrle(fb: Framebuffer, x: number, y: number, w: number, h: number, d: Buffer): void {
  let p = 0;
  const need = (n: number) => {
    if (p + n > d.length) throw new RfbError('PROTOCOL', `ZRLE rectangle ${w}x${h} at ${x},${y} ended early`);
  };
  const palette = new Uint8Array(128 * 3);
  for (let ty = y; ty < y + h; ty += 64) {
    const th = Math.min(64, y + h - ty);
    for (let tx = x; tx < x + w; tx += 64) {
      const tw = Math.min(64, x + w - tx);
      const n = tw * th;
      need(1);
      const sub = d[p++];
      if (sub === 0) {
        need(n * 3);
        for (let i = 0; i < n; i++, p += 3) fb.fillRun(tx, ty, tw, i, 1, d[p], d[p + 1], d[p + 2]);
      } else if (sub === 1) {
        need(3);
        fb.fillRun(tx, ty, tw, 0, n, d[p], d[p + 1], d[p + 2]);
        p += 3;
      } else if (sub <= 16) {
        need(sub * 3);
        for (let k = 0; k < sub * 3; k++) palette[k] = d[p++];
        const bits = sub === 2 ? 1 : sub <= 4 ? 2 : 4;
        const mask = (1 << bits) - 1;
        const rowBytes = Math.ceil((tw * bits) / 8);
        need(rowBytes * th);
        for (let row = 0; row < th; row++) {
          const base = p + row * rowBytes;
          for (let col = 0; col < tw; col++) {
            const bit = col * bits;
            const idx = (d[base + (bit >> 3)] >> (8 - bits - (bit & 7))) & mask;
            fb.fillRun(tx, ty, tw, row * tw + col, 1, palette[idx * 3], palette[idx * 3 + 1], palette[idx * 3 + 2]);
          }
        }
        p += rowBytes * th;
      } else if (sub === 128) {
        for (let i = 0; i < n;) {
          need(4);
          const r = d[p], g = d[p + 1], b = d[p + 2];
          p += 3;
          let len = 1;
          let c: number;
          do { need(1); c = d[p++]; len += c; } while (c === 255);
          if (i + len > n) throw new RfbError('PROTOCOL', 'ZRLE run past the end of its tile');
          fb.fillRun(tx, ty, tw, i, len, r, g, b);
          i += len;
        }
      } else if (sub >= 130) {
        const size = sub - 128;
        need(size * 3);
        for (let k = 0; k < size * 3; k++) palette[k] = d[p++];
        for (let i = 0; i < n;) {
          need(1);
          let idx = d[p++];
          let len = 1;
          if (idx & 0x80) {
            idx &= 0x7f;
            let c: number;
            do { need(1); c = d[p++]; len += c; } while (c === 255);
          }
          if (idx >= size) throw new RfbError('PROTOCOL', `ZRLE palette index ${idx} outside a palette of ${size}`);
          if (i + len > n) throw new RfbError('PROTOCOL', 'ZRLE run past the end of its tile');
          fb.fillRun(tx, ty, tw, i, len, palette[idx * 3], palette[idx * 3 + 1], palette[idx * 3 + 2]);
          i += len;
        }
      } else {
        throw new RfbError('PROTOCOL', `ZRLE sub-encoding ${sub} is not defined`);
      }
    }
  }
  if (p !== d.length) throw new RfbError('PROTOCOL', `ZRLE rectangle left ${d.length - p} bytes undecoded`);
}
