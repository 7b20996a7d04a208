import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { VmhubError } from '../errors.ts';
import { createTesseractEngine, detectTesseract } from './tesseract.ts';
import type { OcrImage } from './types.ts';

interface Placed { text: string; x: number; baseline: number }

/** Render words with librsvg, then measure where each one's ink really is (the ground truth). */
async function render(theme: 'light' | 'dark', size: number, placed: Placed[], width = 640, height = 240) {
  const [bg, fg] = theme === 'dark' ? ['#1e1e1e', '#d4d4d4'] : ['#ffffff', '#202020'];
  const texts = placed.map((p) => `<text x="${p.x}" y="${p.baseline}" font-family="DejaVu Sans" font-size="${size}" fill="${fg}">${p.text}</text>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${bg}"/>${texts.join('')}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const image: OcrImage = { data, width: info.width, height: info.height, channels: 3 };
  const background = data[0]!;
  const ink = placed.map((p) => {
    // each word is alone in its band: from a little above the cap height to below the descenders
    let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
    for (let y = Math.max(0, Math.floor(p.baseline - size * 1.2)); y < Math.min(height, p.baseline + size * 0.4); y++) {
      for (let x = p.x - 2; x < Math.min(width, p.x + p.text.length * size); x++) {
        if (Math.abs(data[(y * width + x) * 3]! - background) > 60) { x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y); }
      }
    }
    return { text: p.text, cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, x0, y0, x1, y1 };
  });
  return { image, ink };
}

function tesseractChildren(): number {
  let n = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (comm === 'tesseract' && ppid === process.pid) n++;
    } catch { /* gone while listing */ }
  }
  return n;
}

describe('core: ocr tesseract engine', () => {
  for (const theme of ['light', 'dark'] as const) {
    for (const size of [12, 20]) {
      it(`reads ${size} px text on a ${theme} screen with boxes on the rendered words`, async () => {
        const placed: Placed[] = [
          { text: 'Terminal', x: 20, baseline: 40 },
          { text: 'Settings', x: 300, baseline: 40 },
          { text: 'Download', x: 40, baseline: 120 },
          { text: 'Window', x: 360, baseline: 190 },
        ];
        const { image, ink } = await render(theme, size, placed);
        const words = await createTesseractEngine().recognize(image);
        for (const truth of ink) {
          const word = words.find((w) => w.text === truth.text);
          assert.ok(word, `"${truth.text}" not found in ${JSON.stringify(words.map((w) => w.text))}`);
          assert.ok(word.x <= truth.cx && truth.cx <= word.x + word.width && word.y <= truth.cy && truth.cy <= word.y + word.height,
            `"${truth.text}": box ${JSON.stringify(word)} does not contain the ink centre (${truth.cx}, ${truth.cy})`);
          // the box is the word's, not a line's or a pixel's: within a few pixels of the ink
          for (const [got, want] of [[word.x, truth.x0], [word.y, truth.y0], [word.x + word.width, truth.x1 + 1], [word.y + word.height, truth.y1 + 1]] as const) {
            assert.ok(Math.abs(got - want) <= 3, `"${truth.text}": box ${JSON.stringify(word)} vs ink ${JSON.stringify(truth)}`);
          }
          assert.ok(word.confidence > 0.5 && word.confidence <= 1);
        }
      });
    }
  }
  it('reads a screen cut into bands at blank rows as it reads it whole', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => ({ text: `Row${i} Alpha${i} Beta${i}`, x: 10 + (i % 3) * 40, baseline: 30 + i * 30 }));
    const { image } = await render('dark', 14, lines, 400, 380);
    const whole = await createTesseractEngine({ parallel: 1 }).recognize(image);
    const banded = await createTesseractEngine({ parallel: 3 }).recognize(image);
    const strip = (ws: typeof whole) => ws.map(({ text, x, y, width, height }) => ({ text, x, y, width, height }));
    assert.deepEqual(strip(banded), strip(whole));
    assert.equal(whole.length, 36);
    // lines stay distinct across bands: one line number per rendered row
    assert.equal(new Set(banded.map((w) => w.line)).size, 12);
  });
  it('accepts RGBA and grey pixels alike', async () => {
    const { image } = await render('dark', 20, [{ text: 'Install', x: 30, baseline: 60 }], 200, 100);
    const rgba = await sharp(image.data, { raw: { width: 200, height: 100, channels: 3 } }).ensureAlpha().raw().toBuffer();
    const grey = await sharp(image.data, { raw: { width: 200, height: 100, channels: 3 } }).toColourspace('b-w').extractChannel(0).raw().toBuffer();
    const engine = createTesseractEngine();
    assert.deepEqual((await engine.recognize({ data: rgba, width: 200, height: 100, channels: 4 })).map((w) => w.text), ['Install']);
    assert.deepEqual((await engine.recognize({ data: grey, width: 200, height: 100, channels: 1 })).map((w) => w.text), ['Install']);
  });
  it('refuses pixels that do not fit the stated size, running nothing', async () => {
    const err = await createTesseractEngine({ binary: '/nonexistent/tesseract' }).recognize({ data: Buffer.alloc(10), width: 10, height: 10, channels: 3 }).catch((e) => e);
    assert.ok(VmhubError.is(err) && err.code === 'INVALID_REQUEST', String(err));
  });
  it('kills tesseract when the signal aborts', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => ({ text: `line ${i} of a long screen full of words to read`, x: 10, baseline: 24 + i * 26 }));
    const { image } = await render('dark', 14, lines, 1280, 800);
    const controller = new AbortController();
    const before = tesseractChildren();
    const running = createTesseractEngine({ prepare: { scale: 3 } }).recognize(image, { signal: controller.signal });
    let settled = false;
    running.catch(() => {}).finally(() => { settled = true; });
    while (tesseractChildren() === before && !settled) await new Promise((r) => setTimeout(r, 5));
    assert.ok(!settled, 'tesseract was still running when aborted');
    controller.abort();
    const err = await running.catch((e) => e);
    assert.ok(VmhubError.is(err) && err.code === 'TIMEOUT', String(err));
    assert.equal(tesseractChildren(), before, 'the tesseract process is gone');
  });
  it('bounds a run by timeoutMs', async () => {
    const { image } = await render('light', 14, [{ text: 'slow', x: 10, baseline: 40 }], 1280, 800);
    const before = tesseractChildren();
    const err = await createTesseractEngine({ timeoutMs: 1 }).recognize(image).catch((e) => e);
    assert.ok(VmhubError.is(err) && err.code === 'TIMEOUT' && /tesseract/.test(err.message), String(err));
    assert.equal(tesseractChildren(), before);
  });
  it('a missing binary: detectTesseract gives the install hint, recognize answers CAPABILITY_UNAVAILABLE', async () => {
    const found = await detectTesseract({ binary: '/nonexistent/tesseract' });
    assert.ok('problem' in found && /not found/.test(found.problem), JSON.stringify(found));
    assert.match(found.hint, /apt install tesseract-ocr tesseract-ocr-eng/);
    const { image } = await render('light', 12, [{ text: 'x', x: 10, baseline: 20 }], 40, 40);
    const err = await createTesseractEngine({ binary: '/nonexistent/tesseract' }).recognize(image).catch((e) => e);
    assert.ok(VmhubError.is(err) && err.code === 'CAPABILITY_UNAVAILABLE', String(err));
    assert.match(err.hint, /tesseract-ocr-eng/);
  });
  it('missing language data: detect names it, recognize answers CAPABILITY_UNAVAILABLE with stderr', async () => {
    const found = await detectTesseract({ languages: 'eng+zzz' });
    assert.ok('problem' in found && /zzz/.test(found.problem), JSON.stringify(found));
    assert.match(found.hint, /tesseract-ocr-zzz/);
    const { image } = await render('light', 12, [{ text: 'x', x: 10, baseline: 20 }], 40, 40);
    const err = await createTesseractEngine({ languages: 'zzz' }).recognize(image).catch((e) => e);
    assert.ok(VmhubError.is(err) && err.code === 'CAPABILITY_UNAVAILABLE' && /zzz/.test(err.message), String(err));
  });
  it('detectTesseract names the version in the engine id', async () => {
    const found = await detectTesseract();
    assert.ok('engine' in found, JSON.stringify(found));
    assert.match(found.engine.id, /^tesseract \d+\.\d+/);
  });
});
