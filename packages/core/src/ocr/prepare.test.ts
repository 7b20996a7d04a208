import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { prepareForOcr, prepareRows } from './prepare.ts';
import { createTesseractEngine } from './tesseract.ts';
import type { OcrImage } from './types.ts';

const WIDTH = 480, HEIGHT = 120;
const WORDS = [{ text: 'Terminal', x: 20, baseline: 40 }, { text: 'Download', x: 260, baseline: 95 }];

/** Grey text on black as librsvg draws it (anti-aliased), or thresholded to two levels as a console's bitmap font is. */
async function screen(bitmap: boolean): Promise<OcrImage> {
  const texts = WORDS.map((w) => `<text x="${w.x}" y="${w.baseline}" font-family="DejaVu Sans Mono" font-size="20" fill="#aaaaaa">${w.text}</text>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="100%" height="100%" fill="#000"/>${texts.join('')}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (bitmap) for (let i = 0; i < data.length; i++) data[i] = data[i]! > 70 ? 0xaa : 0;
  return { data, width: info.width, height: info.height, channels: 3 };
}

/** Centre of each word's ink, measured on the pixels (the ground truth the boxes must hold). */
function inkCentres(image: OcrImage) {
  return WORDS.map((w) => {
    let y0 = Infinity, y1 = -1, x0 = Infinity, x1 = -1;
    for (let y = w.baseline - 24; y < w.baseline + 6; y++) {
      for (let x = w.x - 2; x < w.x + w.text.length * 13; x++) {
        if (image.data[(y * image.width + x) * 3]! > 70) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
      }
    }
    return { text: w.text, cx: (x0 + x1) / 2, cy: (y0 + y1) / 2 };
  });
}

describe('core: ocr prepare', () => {
  it('magnifies bitmap-font text taller than wide, anti-aliased text evenly', async () => {
    const bitmap = await prepareForOcr(await screen(true));
    assert.equal(bitmap.scale, 2);
    assert.equal(bitmap.scaleY, 2.5);
    assert.equal(bitmap.width, WIDTH * 2);
    assert.equal(bitmap.height, HEIGHT * 2.5);
    assert.equal(bitmap.pixels.length, bitmap.width * bitmap.height);
    const smooth = await prepareForOcr(await screen(false));
    assert.equal(smooth.scale, 2);
    assert.equal(smooth.scaleY, 2);
    assert.equal(smooth.height, HEIGHT * 2);
  });

  it('lets the caller force the bitmap treatment on or off', async () => {
    assert.equal((await prepareForOcr(await screen(true), { bitmap: false })).scaleY, 2);
    assert.equal((await prepareForOcr(await screen(false), { bitmap: true })).scaleY, 2.5);
    assert.equal((await prepareForOcr(await screen(true), { scale: 1 })).scaleY, 1.25);
  });

  it('prepares bands of rows exactly as the whole screen, stacked with white between them', async () => {
    for (const bitmap of [false, true]) {
      const image = await screen(bitmap);
      const whole = await prepareForOcr(image, { scale: 1, bitmap: false });
      const rows = await prepareRows(image, [[20, 45], [75, 105]], { scale: 1, bitmap: false });
      assert.deepEqual(rows.tiles, [{ top: 20, bottom: 45, at: 0 }, { top: 75, bottom: 105, at: 41 }]);
      assert.equal(rows.height, 25 + 16 + 30);
      for (const t of rows.tiles) {
        assert.ok(rows.pixels.subarray(t.at * WIDTH, (t.at + t.bottom - t.top) * WIDTH).equals(whole.pixels.subarray(t.top * WIDTH, t.bottom * WIDTH)), `rows ${t.top}–${t.bottom}`);
      }
      assert.ok(rows.pixels.subarray(25 * WIDTH, 41 * WIDTH).every((v) => v === 255), 'white between bands');
      // the bitmap decision is the whole screen's, not the bands'
      assert.equal((await prepareRows(image, [[0, 30]])).scaleY, bitmap ? 2.5 : 2);
    }
  });

  it('reads bitmap text with boxes back in the input image pixels (both scales undone)', async () => {
    const image = await screen(true);
    const words = await createTesseractEngine().recognize(image);
    for (const truth of inkCentres(image)) {
      const word = words.find((w) => w.text === truth.text);
      assert.ok(word, `"${truth.text}" not found in ${JSON.stringify(words.map((w) => w.text))}`);
      assert.ok(word.x <= truth.cx && truth.cx <= word.x + word.width, `${truth.text}: x ${truth.cx} outside ${word.x}+${word.width}`);
      assert.ok(word.y <= truth.cy && truth.cy <= word.y + word.height, `${truth.text}: y ${truth.cy} outside ${word.y}+${word.height}`);
      assert.ok(word.y + word.height <= HEIGHT && word.x + word.width <= WIDTH);
    }
  });
});
