import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { VmhubError } from './errors.ts';
import { assertOnScreen, imageToScreen } from './screen-mapping.ts';
import { passThrough, shapeScreenshot } from './screenshot.ts';

async function frame(width: number, height: number) {
  // left half red, right half blue, with noise so PNG does not compress to nothing
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    const i = (y * width + x) * 4;
    const n = (x * 31 + y * 17) % 23;
    data[i] = x < width / 2 ? 200 + n : n; data[i + 1] = n; data[i + 2] = x < width / 2 ? n : 200 + n; data[i + 3] = 255;
  }
  return { data, format: 'rgba' as const, width, height };
}

describe('core: screenshot contract', () => {
  it('fits the pixel box and reports scale, origin and screen', async () => {
    const shot = await shapeScreenshot(await frame(1280, 800), { maxWidth: 640, maxHeight: 640 });
    assert.deepEqual([shot.width, shot.height, shot.scale], [640, 400, 0.5]);
    assert.deepEqual(shot.screen, { width: 1280, height: 800 });
    const meta = await sharp(shot.data).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 640, 400]);
  });
  it('encodes jpeg and webp and respects the byte budget', async () => {
    for (const format of ['jpeg', 'webp'] as const) {
      const shot = await shapeScreenshot(await frame(1280, 800), { format, maxBytes: 30_000 });
      assert.ok(shot.data.length <= 30_000, `${format} ${shot.data.length} bytes`);
      assert.equal((await sharp(shot.data).metadata()).format, format);
    }
  });
  it('crops a region and maps image points back to the screen', async () => {
    const shot = await shapeScreenshot(await frame(1280, 800), { region: { x: 640, y: 100, width: 320, height: 200 } });
    assert.deepEqual(shot.origin, { x: 640, y: 100 });
    assert.deepEqual(imageToScreen({ x: 10, y: 20 }, shot), { x: 650, y: 120 });
    const { data } = await sharp(shot.data).raw().toBuffer({ resolveWithObject: true });
    assert.ok(data[2]! > 150 && data[0]! < 60, 'the region is from the blue half');
  });
  it('maps downscaled image coordinates to screen pixels and rejects points off the image', async () => {
    const m = { scale: 0.5, origin: { x: 0, y: 0 }, width: 640, height: 400, screen: { width: 1280, height: 800 } };
    assert.deepEqual(imageToScreen({ x: 320, y: 200 }, m), { x: 640, y: 400 });
    assert.throws(() => imageToScreen({ x: 640, y: 10 }, m), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    assert.throws(() => assertOnScreen({ x: 1280, y: 0 }, m.screen), /off the 1280x800 screen/);
  });
  it('rejects a region outside the screen', async () => {
    await assert.rejects(shapeScreenshot(await frame(100, 100), { region: { x: 50, y: 50, width: 60, height: 10 } }), /outside the 100x100 screen/);
  });
  it('hands an encoded capture through as is when it already fits format, box and budget; else shapes it', async () => {
    const f = await frame(400, 300);
    const png = { data: await sharp(f.data, { raw: { width: 400, height: 300, channels: 4 } }).png({ compressionLevel: 1 }).toBuffer(), format: 'png' as const, width: 400, height: 300 };
    const fits = { maxWidth: 400, maxHeight: 300 };
    const same = await shapeScreenshot(png, fits);
    assert.equal(same.data, png.data, 'the very bytes, no re-encode');
    assert.deepEqual([same.width, same.height, same.scale, same.origin, same.screen, same.mime], [400, 300, 1, { x: 0, y: 0 }, { width: 400, height: 300 }, 'image/png']);
    assert.equal(passThrough(png, { ...fits, region: { x: 0, y: 0, width: 400, height: 300 } })?.data, png.data, 'a region that is the whole screen');
    const shaped = [
      passThrough(png, { maxWidth: 399, maxHeight: 300 }), // the box is smaller
      passThrough(png, { ...fits, scale: 2 }), // a zoom
      passThrough(png, { ...fits, format: 'jpeg' }), // another format
      passThrough(png, { ...fits, maxBytes: png.data.length - 1 }), // over the budget
      passThrough(png, { ...fits, region: { x: 0, y: 0, width: 200, height: 300 } }), // a region
      passThrough(png, { ...fits, overlay: () => Buffer.from('<svg/>') }), // marks
      passThrough(f, fits), // raw pixels need an encode
      passThrough({ ...png, width: 401 }, { maxWidth: 401, maxHeight: 300 }), // not the size the adapter declared
    ];
    assert.deepEqual(shaped, shaped.map(() => undefined));
    const smaller = await shapeScreenshot(png, { maxWidth: 200, maxHeight: 300 });
    assert.deepEqual([smaller.width, smaller.height, smaller.scale], [200, 150, 0.5]);
  });
});
