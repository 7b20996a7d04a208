import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FrameBuffers, readStableFrame } from './stable-frame.ts';

/** A frame file's bytes: a 100-byte header of zeros with version 7 at byte 4, then `fill`. */
function dump(fill: number, size = 4096): Buffer {
  const b = Buffer.alloc(size, fill);
  b.fill(0, 0, 100);
  b.writeUInt32BE(7, 4);
  return b;
}

describe('adapter kit: reading a shared framebuffer file', () => {
  it('a screen unchanged since the last frame is that frame again: one decode, the same value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vmhub-fb-'));
    const file = join(dir, 'Xvfb_screen0');
    try {
      const buffers = new FrameBuffers();
      let decodes = 0;
      const use = (d: Buffer) => { decodes++; return { first: d[200], copy: Buffer.from(d) }; };
      writeFileSync(file, dump(1));
      const a = await readStableFrame(file, use, buffers);
      const again = await readStableFrame(file, use, buffers);
      assert.equal(again, a, 'the same decoded frame is handed out');
      assert.equal(decodes, 1);

      writeFileSync(file, dump(2));
      const b = await readStableFrame(file, use, buffers);
      assert.equal(b?.first, 2, 'a change is read and decoded');
      assert.equal(decodes, 2);
      // Back to the first content: decoded afresh from the file, not mistaken for the frame before.
      writeFileSync(file, dump(1));
      const c = await readStableFrame(file, use, buffers);
      assert.deepEqual([c?.first, decodes], [1, 3]);
      assert.ok(c?.copy.equals(dump(1)));
      assert.equal(await readStableFrame(file, use, buffers), c);
      assert.equal(decodes, 3);

      // Another decoder is never handed this one's value.
      const other = await readStableFrame(file, (d) => d.length, buffers);
      assert.equal(other, 4096);
      assert.equal(await readStableFrame(file, use, buffers) === c, false, 'the other read took the buffers: decoded again');
      // Another size (the screen was resized): new buffers, decoded again.
      writeFileSync(file, dump(1, 8192));
      assert.equal((await readStableFrame(file, use, buffers))?.copy.length, 8192);

      buffers.release();
      const before = decodes;
      await readStableFrame(file, use, buffers);
      assert.equal(decodes, before + 1, 'released buffers keep no frame');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('buffers unused for their idle time are dropped: the next read decodes afresh; a read in time keeps them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vmhub-fb-'));
    const file = join(dir, 'Xvfb_screen0');
    try {
      const buffers = new FrameBuffers(250);
      let decodes = 0;
      const use = (d: Buffer) => { decodes++; return d[200]; };
      writeFileSync(file, dump(3));
      await readStableFrame(file, use, buffers);
      // Each read re-arms the idle time: reads 50 ms apart for 400 ms (past 250 ms since the first) keep the frame.
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 50));
        await readStableFrame(file, use, buffers);
      }
      assert.equal(decodes, 1, 'read again within the idle time: the kept frame');
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(await readStableFrame(file, use, buffers), 3);
      assert.equal(decodes, 2, 'idle past the time: the buffers and their frame were dropped');
      buffers.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a file of another size than promised, one `accept` refuses, or a link gives no frame; `key` tells decoders apart; reads: 1 takes the first read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vmhub-fb-'));
    const file = join(dir, 'frame');
    try {
      writeFileSync(file, dump(5));
      assert.equal(await readStableFrame(file, (d) => d[200], undefined, { bytes: 4095 }), undefined, 'another size');
      assert.equal(await readStableFrame(file, (d) => d[200], undefined, { bytes: 4096 }), 5);
      assert.equal(await readStableFrame(file, (d) => d[200], undefined, { accept: (d) => d.readUInt32BE(4) === 8 }), undefined, 'refused header');
      assert.equal(await readStableFrame(file, (d) => d[200], undefined, { accept: (d) => d.readUInt32BE(4) === 7 }), 5);
      assert.equal(await readStableFrame(file, (d) => d[200], undefined, { reads: 1 }), 5);
      symlinkSync(file, join(dir, 'link'));
      assert.equal(await readStableFrame(join(dir, 'link'), (d) => d[200]), undefined, 'a link the guest planted is not followed');

      // A decoder made afresh per call (a closure over the frame's geometry) keeps its frame by key.
      const buffers = new FrameBuffers();
      let decodes = 0;
      const read = (key: string) => readStableFrame(file, (d) => { decodes++; return { key, first: d[200] }; }, buffers, { key });
      const a = await read('1280 800');
      assert.equal(await read('1280 800'), a, 'the same key: the kept frame');
      assert.equal(decodes, 1);
      assert.equal((await read('800 1280'))?.key, '800 1280', 'another key: decoded again');
      assert.equal(decodes, 2);
      buffers.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
