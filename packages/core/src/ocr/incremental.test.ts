import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { cachedOcr } from './cache.ts';
import { changedBands, grow, mergeWords, planRead, rowsToRead } from './incremental.ts';
import { createTesseractEngine } from './tesseract.ts';
import type { OcrEngine, OcrImage, OcrWord, RowBand } from './types.ts';

const WIDTH = 640, HEIGHT = 260, LINE = 20;

/** A terminal-like screen: DejaVu Sans Mono 14 px, light grey on dark, one text a line. */
async function screen(lines: string[]): Promise<OcrImage> {
  const texts = lines.map((t, i) => `<text x="6" y="${(i + 1) * LINE}" xml:space="preserve">${t}</text>`);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="100%" height="100%" fill="#1e1e1e"/><g font-family="DejaVu Sans Mono" font-size="14" fill="#d4d4d4">${texts.join('')}</g></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

const BEFORE = [
  'total 48 drwxr-xr-x root users',
  'config server client module kernel',
  'package version release branch',
  'user@vmhub:~$ echo hel',
  'report notes setup index',
  'deploy debug output input source',
  'Download Settings Terminal Window',
];

/** The engine, recording which rows each call read (undefined: the whole image). */
function spied(): { engine: OcrEngine; reads: Array<readonly RowBand[] | undefined> } {
  const inner = createTesseractEngine();
  const reads: Array<readonly RowBand[] | undefined> = [];
  return { reads, engine: { id: inner.id, recognize: (image, opts = {}) => { reads.push(opts.rows); return inner.recognize(image, opts); } } };
}

const texts = (words: readonly OcrWord[]) => words.map((w) => w.text);
const word = (text: string, line: number, y: number, x = 0): OcrWord => ({ text, confidence: 0.9, x, y, width: 40, height: 12, line });

describe('core: ocr in proportion to what changed', () => {
  it('grows a band over every word it touches and the rest of their lines; joins bands that meet', () => {
    const words = [word('a', 0, 10), word('b', 0, 12, 100), word('c', 1, 40), word('d', 2, 70)];
    // touches a's bottom: a, and b on a's line, are taken whole
    assert.deepEqual(grow([[20, 24]], words), [[10, 24]]);
    // nothing touched: the band stays
    assert.deepEqual(grow([[26, 30]], words), [[26, 30]]);
    // two bands grown into each other become one
    assert.deepEqual(grow([[20, 23], [23, 45]], words), [[10, 52]]);
  });

  it('reads a few rows beyond a band, never into another line\'s words', () => {
    const words = [word('above', 0, 10), word('below', 1, 40)];
    // 22 is 3 rows past "above"'s bottom; 40 is "below"'s top, 1 row away
    assert.deepEqual(rowsToRead([[25, 39]], 100, words), [[22, 40]]);
    assert.deepEqual(rowsToRead([[23, 39]], 100, words), [[22, 40]]);
    assert.deepEqual(rowsToRead([[1, 5], [95, 99]], 100), [[0, 8], [92, 100]]);
  });

  it('merges: words outside the bands kept as they were, words in them replaced, lines renumbered top to bottom', () => {
    const before = [word('top', 0, 10), word('old', 1, 40), word('bottom', 2, 70)];
    const read = [word('new', 0, 41, 10), word('gap', 1, 200)];
    const merged = mergeWords(before, [[36, 56]], read);
    assert.deepEqual(texts(merged), ['top', 'new', 'bottom']);
    assert.deepEqual(merged.map((w) => w.line), [0, 1, 2]);
    assert.deepEqual({ ...merged[0], line: 0 }, before[0]);
  });

  it('plans nothing for identical pixels, a whole read past half the rows, and bands for a small change', async () => {
    const a = await screen(BEFORE);
    assert.equal(planRead(a, [], a), 'same');
    assert.equal(planRead(a, [], { ...a, data: Buffer.from(a.data.map((v) => 255 - v)) }), 'whole');
    const plan = planRead(a, [], await screen(BEFORE.map((l, i) => (i === 3 ? `${l}lo` : l))));
    assert.ok(Array.isArray(plan) && plan.length === 1, JSON.stringify(plan));
    assert.deepEqual(changedBands(a, a), []);
  });

  it('with real tesseract: after one line changes, only its rows are read; other words are kept, the changed word read whole', async () => {
    const { engine, reads } = spied();
    const ocr = cachedOcr(engine);
    const before = await ocr.recognize(await screen(BEFORE));
    assert.equal(reads.length, 1);
    assert.equal(reads[0], undefined, 'the first read is whole');
    assert.ok(texts(before).includes('hel'), JSON.stringify(texts(before)));

    // "lo" typed after "hel": the changed pixels sit right of the old word, which must be read again whole
    const typed = BEFORE.map((l, i) => (i === 3 ? `${l}lo world` : l));
    const image = await screen(typed);
    const after = await ocr.recognize(image);
    assert.equal(reads.length, 2);
    const rows = reads[1];
    assert.ok(rows, 'the second read is of some rows only');
    assert.ok(rows.reduce((n, [t, b]) => n + b - t, 0) <= LINE * 2, `rows read: ${JSON.stringify(rows)}`);
    assert.ok(texts(after).includes('hello'), JSON.stringify(texts(after)));
    assert.ok(texts(after).includes('world'));
    assert.ok(!texts(after).includes('hel'), 'the border word was read again, not kept');

    // every word off the changed line is the one read before, box and all
    const changed = after.find((w) => w.text === 'hello')!;
    const kept = before.filter((w) => w.y + w.height <= changed.y || w.y >= changed.y + changed.height);
    for (const k of kept) assert.ok(after.some((w) => w.text === k.text && w.x === k.x && w.y === k.y && w.width === k.width && w.height === k.height), `kept ${k.text}`);
    // and the result is what a whole read of the new screen gives
    const whole = await createTesseractEngine().recognize(image);
    assert.deepEqual(texts(after).sort(), texts(whole).sort());
    const wholeHello = whole.find((w) => w.text === 'hello')!;
    assert.ok(Math.abs(wholeHello.x - changed.x) <= 1 && Math.abs(wholeHello.y - changed.y) <= 1, `${JSON.stringify(changed)} vs ${JSON.stringify(wholeHello)}`);
    // lines are whole lines in reading order: "echo" and "hello" share one
    assert.equal(after.find((w) => w.text === 'echo')!.line, changed.line);
  });

  it('with real tesseract: a change cutting through a word re-reads the word (and its line) whole', async () => {
    const a = await screen(BEFORE);
    const words = await createTesseractEngine().recognize(a);
    // a 6 px underline under "Settings": its rows cross only the bottom of the last line's words
    const line = words.find((w) => w.text === 'Settings')!;
    const b = { ...a, data: Buffer.from(a.data) };
    for (let y = line.y + line.height - 2; y < line.y + line.height + 4; y++) {
      for (let x = line.x; x < line.x + line.width; x++) b.data.fill(0xd4, (y * WIDTH + x) * 3, (y * WIDTH + x) * 3 + 3);
    }
    const plan = planRead(a, words, b);
    assert.ok(Array.isArray(plan), String(plan));
    for (const w of words.filter((w) => w.line === line.line)) {
      assert.ok(plan.some(([t, bottom]) => w.y >= t && w.y + w.height <= bottom), `${w.text} wholly in ${JSON.stringify(plan)}`);
    }
    const read = await createTesseractEngine().recognize(b, { rows: rowsToRead(plan, HEIGHT, words) });
    for (const t of ['Download', 'Terminal', 'Window']) assert.ok(texts(read).includes(t), JSON.stringify(texts(read)));
    assert.ok(!texts(read).includes('config'), 'nothing from outside the rows');
  });
});
