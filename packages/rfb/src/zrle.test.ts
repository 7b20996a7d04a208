import assert from 'node:assert/strict';
import { test } from 'node:test';
import { constants, createDeflate } from 'node:zlib';
import { Framebuffer } from './framebuffer.ts';
import { decodeZrle, StreamInflater } from './zrle.ts';

const px = (fb: Framebuffer, x: number, y: number) => [...fb.data.subarray((y * fb.width + x) * 4, (y * fb.width + x) * 4 + 4)];

test('rfb: ZRLE sub-encodings raw, solid, packed palette, plain RLE and palette RLE decode', () => {
  const fb = new Framebuffer(70, 3); // two tiles across: 64 + 6
  // Tile 1 (64x3): plain RLE — 100 red then 92 green.
  const rle = (len: number) => { const out: number[] = []; let n = len - 1; while (n >= 255) { out.push(255); n -= 255; } out.push(n); return out; };
  const tile1 = Buffer.from([128, 255, 0, 0, ...rle(100), 0, 255, 0, ...rle(92)]);
  // Tile 2 (6x3): packed palette of 2 (1 bit): rows 101010, 010101, 111000
  const tile2 = Buffer.from([2, 0, 0, 255, 9, 9, 9, 0b10101000, 0b01010100, 0b11100000]);
  decodeZrle(fb, 0, 0, 70, 3, Buffer.concat([tile1, tile2]));
  assert.deepEqual(px(fb, 0, 0), [255, 0, 0, 255]);
  assert.deepEqual(px(fb, 35, 1), [255, 0, 0, 255]); // index 99 = row 1, col 35
  assert.deepEqual(px(fb, 36, 1), [0, 255, 0, 255]);
  assert.deepEqual(px(fb, 63, 2), [0, 255, 0, 255]);
  assert.deepEqual(px(fb, 64, 0), [9, 9, 9, 255]);
  assert.deepEqual(px(fb, 65, 0), [0, 0, 255, 255]);
  assert.deepEqual(px(fb, 64, 1), [0, 0, 255, 255]);
  assert.deepEqual(px(fb, 69, 2), [0, 0, 255, 255]);
  assert.deepEqual(px(fb, 66, 2), [9, 9, 9, 255]);

  const fb2 = new Framebuffer(4, 2);
  // raw tile then (second rect) solid and palette RLE
  decodeZrle(fb2, 0, 0, 2, 1, Buffer.from([0, 1, 2, 3, 4, 5, 6]));
  assert.deepEqual(px(fb2, 1, 0), [4, 5, 6, 255]);
  decodeZrle(fb2, 2, 0, 2, 2, Buffer.from([1, 7, 7, 7]));
  assert.deepEqual(px(fb2, 3, 1), [7, 7, 7, 255]);
  // palette RLE, 2 colours: idx0 single, idx1 run of 3
  decodeZrle(fb2, 0, 1, 2, 1, Buffer.from([130, 1, 1, 1, 2, 2, 2, 0, 1]));
  assert.deepEqual(px(fb2, 0, 1), [1, 1, 1, 255]);
  assert.deepEqual(px(fb2, 1, 1), [2, 2, 2, 255]);
  decodeZrle(fb2, 0, 0, 4, 1, Buffer.from([130, 1, 1, 1, 2, 2, 2, 0, 0x81, 2]));
  assert.deepEqual([0, 1, 2, 3].map((x) => px(fb2, x, 0)[0]), [1, 2, 2, 2]);
});

test('rfb: ZRLE refuses data that runs short or long', () => {
  const fb = new Framebuffer(4, 4);
  assert.throws(() => decodeZrle(fb, 0, 0, 4, 4, Buffer.from([1, 0, 0])), { code: 'PROTOCOL' });
  assert.throws(() => decodeZrle(fb, 0, 0, 1, 1, Buffer.from([1, 0, 0, 0, 9])), { code: 'PROTOCOL' });
  assert.throws(() => decodeZrle(fb, 0, 0, 1, 1, Buffer.from([50])), { code: 'PROTOCOL' });
});

test('rfb: one inflate stream spans rectangles (server flushes at each)', async () => {
  const z = createDeflate();
  const parts: Buffer[] = [];
  z.on('data', (c: Buffer) => parts.push(c));
  const flushed = async (b: Buffer) => {
    z.write(b);
    await new Promise<void>((ok) => z.flush(constants.Z_SYNC_FLUSH, () => ok()));
    await new Promise((ok) => setImmediate(ok));
    const out = Buffer.concat(parts.splice(0));
    return out;
  };
  const a = await flushed(Buffer.from('first rectangle '.repeat(50)));
  const b = await flushed(Buffer.from('second rectangle, same dictionary '.repeat(40)));
  const inf = new StreamInflater();
  assert.equal((await inf.inflate(a)).toString(), 'first rectangle '.repeat(50));
  assert.equal((await inf.inflate(b)).toString(), 'second rectangle, same dictionary '.repeat(40));
  inf.close();
  z.destroy();
});
