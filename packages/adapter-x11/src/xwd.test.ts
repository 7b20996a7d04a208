import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { xwdToRgb } from './xwd.ts';

/** Build an XWD dump: 25 big-endian header fields, a window name, ncolors × 12 bytes, pixels. */
function xwd(opts: { width: number; height: number; bpp: 24 | 32; lsb: boolean; pixel: (x: number, y: number) => number; pad?: number; ncolors?: number; name?: string }): Buffer {
  const name = Buffer.from(opts.name ?? 'xwdump\0');
  const bytesPerLine = opts.width * (opts.bpp / 8) + (opts.pad ?? 0);
  const ncolors = opts.ncolors ?? 0;
  const header = Buffer.alloc(100);
  const fields = [100 + name.length, 7, 2, 24, opts.width, opts.height, 0, opts.lsb ? 0 : 1, 32, opts.lsb ? 0 : 1, 32, opts.bpp, bytesPerLine, 4, 0xff0000, 0xff00, 0xff, 8, 256, ncolors, opts.width, opts.height, 0, 0, 0];
  fields.forEach((v, i) => header.writeUInt32BE(v, i * 4));
  const pixels = Buffer.alloc(bytesPerLine * opts.height);
  for (let y = 0; y < opts.height; y++) {
    for (let x = 0; x < opts.width; x++) {
      const v = opts.pixel(x, y), p = y * bytesPerLine + x * (opts.bpp / 8);
      if (opts.bpp === 32) { if (opts.lsb) pixels.writeUInt32LE(v, p); else pixels.writeUInt32BE(v, p); }
      else if (opts.lsb) { pixels[p] = v & 0xff; pixels[p + 1] = (v >> 8) & 0xff; pixels[p + 2] = (v >> 16) & 0xff; }
      else { pixels[p] = (v >> 16) & 0xff; pixels[p + 1] = (v >> 8) & 0xff; pixels[p + 2] = v & 0xff; }
    }
  }
  return Buffer.concat([header, name, Buffer.alloc(ncolors * 12), pixels]);
}

const colour = (x: number, y: number) => ((x * 40) << 16) | ((y * 50) << 8) | (x + y);

describe('x11: screenshot (XWD parsing)', () => {
  for (const [bpp, lsb] of [[32, true], [32, false], [24, true], [24, false]] as const) {
    it(`decodes ZPixmap ${bpp} bpp ${lsb ? 'LSB' : 'MSB'} first, with row padding and a colormap`, () => {
      const frame = xwdToRgb(xwd({ width: 5, height: 3, bpp, lsb, pixel: colour, pad: 4, ncolors: 256 }));
      assert.deepEqual([frame.width, frame.height, frame.data.length], [5, 3, 45]);
      for (let y = 0; y < 3; y++) for (let x = 0; x < 5; x++) {
        const o = (y * 5 + x) * 3;
        assert.deepEqual([...frame.data.subarray(o, o + 3)], [x * 40, y * 50, x + y], `pixel ${x},${y}`);
      }
    });
  }

  it('pixels 4-byte aligned (as Xvfb -fbdir lays them out) take the 32-bit path and decode the same', () => {
    const opts = { width: 7, height: 4, bpp: 32, lsb: true, pixel: colour, pad: 8, ncolors: 256 } as const;
    const aligned = xwd({ ...opts, name: 'xwdump!\0' }); // 108 + 3072 bytes before the pixels
    assert.equal((aligned.byteOffset + 108 + 256 * 12) % 4, 0);
    const a = xwdToRgb(aligned), b = xwdToRgb(xwd(opts));
    assert.ok(a.data.equals(b.data));
    for (let y = 0; y < 4; y++) for (let x = 0; x < 7; x++) {
      const o = (y * 7 + x) * 3;
      assert.deepEqual([...a.data.subarray(o, o + 3)], [x * 40, y * 50, x + y], `pixel ${x},${y}`);
    }
  });

  it('refuses truncated or foreign dumps with a clear message', () => {
    const good = xwd({ width: 4, height: 4, bpp: 32, lsb: true, pixel: colour });
    assert.throws(() => xwdToRgb(good.subarray(0, good.length - 8)), /truncated/);
    assert.throws(() => xwdToRgb(Buffer.alloc(20)), /only 20 bytes/);
    const bad = Buffer.from(good);
    bad.writeUInt32BE(6, 4);
    assert.throws(() => xwdToRgb(bad), /file_version 6/);
  });
});
