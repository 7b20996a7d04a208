// OCR in proportion to what changed (issue 35.2): a full 1280×800 terminal (DejaVu Sans Mono
// 14 px, light grey on dark, 46 lines of output and a prompt), then one line typed at the prompt.
// In one run, rounds interleaved so every variant sees the same load:
//   floor:        PNG decode + prepareForOcr of the whole screen, no OCR (the floor)
//   whole:        decode + a whole read of the typed screen (what every changed screen cost before)
//   first:        decode + the first read through cachedOcr (nothing remembered: a whole read
//                 plus keeping the pixels), to show a first read is no slower
//   incremental:  decode + cachedOcr on the typed screen with the untyped one remembered
//   tesseract_start: the engine on a blank 1280×20 image: one tesseract process started, its
//                 model loaded, nothing to read (what any read costs at least)
// Each incremental read is checked against the whole read of the same screen: the typed words
// found, and the share of the whole read's words (text and box) the incremental read has too.
//   node bench/ocr-incremental.mjs [rounds]   (writes its section of bench/RESULTS.md)
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { round, stats, writeResultsSection } from './lib.mjs';
import { cachedOcr, createTesseractEngine, findMatches, prepareForOcr } from '../packages/core/dist/ocr/index.js';

const require = createRequire(new URL('../packages/core/package.json', import.meta.url));
const sharp = require('sharp');

const WIDTH = 1280, HEIGHT = 800, SIZE = 14, LINE = 17, CELL = 8.43;
const PROMPT = 'user@vmhub:~/projects/vmhub$ ';
const WORDS = `drwxr-xr-x total build test deploy config server client module kernel driver device package
version release branch commit merge output input source target report.pdf notes.txt main.c index.html
README.md setup.sh 2026-12-01 12:45 4096 root users vmhub node_modules dist src apps packages`.split(/\s+/);

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** The terminal's lines of output: deterministic words, 60–150 characters a line. */
function outputLines(count) {
  let seed = 35;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: count }, () => {
    let line = '';
    const len = 60 + Math.floor(rand() * 90);
    while (line.length < len) line += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
    return line.trimEnd();
  });
}

const LINES = outputLines(Math.floor(HEIGHT / LINE) - 1);

/** The terminal with `typed` at the prompt on its last line and the block cursor after it. */
async function terminal(typed) {
  const rows = [...LINES, PROMPT + typed];
  const texts = rows.map((t, i) => `<text x="4" y="${(i + 1) * LINE - 4}" xml:space="preserve">${esc(t)}</text>`);
  const cursor = `<rect x="${4 + (PROMPT.length + typed.length) * CELL}" y="${rows.length * LINE - LINE + 1}" width="${CELL}" height="${LINE - 1}" fill="#d4d4d4"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="100%" height="100%" fill="#1e1e1e"/><g font-family="DejaVu Sans Mono" font-size="${SIZE}" fill="#d4d4d4">${texts.join('')}</g>${cursor}</svg>`;
  return sharp(Buffer.from(svg)).png({ compressionLevel: 1 }).toBuffer();
}

async function decode(png) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Share of `whole`'s words that `incremental` has with the same text and a box within 2 px. */
function agreement(whole, incremental) {
  const used = new Set();
  let same = 0;
  for (const w of whole) {
    const i = incremental.findIndex((v, k) => !used.has(k) && v.text === w.text && Math.abs(v.x - w.x) <= 2 && Math.abs(v.y - w.y) <= 2 && Math.abs(v.width - w.width) <= 2 && Math.abs(v.height - w.height) <= 2);
    if (i >= 0) { used.add(i); same++; }
  }
  return { same, whole: whole.length, incremental: incremental.length };
}

async function timed(fn) {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

export async function run(rounds = 10) {
  const engine = createTesseractEngine();
  const untyped = await terminal('');
  const times = { floor: [], whole: [], first: [], incremental: [], start: [] };
  const blank = { data: Buffer.alloc(WIDTH * 20 * 3, 0x1e), width: WIDTH, height: 20, channels: 3 };
  const checks = { typed_found: 0, typed_found_whole: 0, same: 0, whole_words: 0, incremental_words: 0 };
  const load = [loadavg()[0]];
  for (let i = 0; i < rounds; i++) {
    const command = `echo build-${i} finished ok`;
    const typed = await terminal(command);
    times.floor.push((await timed(async () => prepareForOcr(await decode(typed)))).ms);
    const whole = await timed(async () => engine.recognize(await decode(typed)));
    times.whole.push(whole.ms);
    const cache = cachedOcr(engine);
    times.first.push((await timed(async () => cache.recognize(await decode(untyped)))).ms);
    const incremental = await timed(async () => cache.recognize(await decode(typed)));
    times.incremental.push(incremental.ms);
    times.start.push((await timed(() => engine.recognize(blank))).ms);
    if (findMatches(incremental.value, `build-${i}`, { minConfidence: 0.5 }).length) checks.typed_found++;
    if (findMatches(whole.value, `build-${i}`, { minConfidence: 0.5 }).length) checks.typed_found_whole++;
    const a = agreement(whole.value, incremental.value);
    checks.same += a.same; checks.whole_words += a.whole; checks.incremental_words += a.incremental;
    load.push(loadavg()[0]);
  }
  const p50 = (k) => stats(times[k]).p50_ms;
  return {
    screen: `${WIDTH}×${HEIGHT} terminal, DejaVu Sans Mono ${SIZE} px, ${LINES.length} lines of output + a prompt; one line typed at the prompt`,
    rounds,
    floor_decode_prepare: stats(times.floor),
    whole_read: stats(times.whole),
    first_read_cached: stats(times.first),
    incremental_read: stats(times.incremental),
    tesseract_start: stats(times.start),
    ratios_p50: {
      incremental_vs_floor: round(p50('incremental') / p50('floor'), 2),
      incremental_vs_whole: round(p50('incremental') / p50('whole'), 3),
      first_vs_whole: round(p50('first') / p50('whole'), 2),
    },
    checks: {
      typed_word_found: { incremental: `${checks.typed_found} of ${rounds}`, whole: `${checks.typed_found_whole} of ${rounds}` },
      words_as_whole_read: round(checks.same / checks.whole_words, 4),
      words: { whole: checks.whole_words, incremental: checks.incremental_words, same: checks.same },
    },
    load_1min: { min: round(Math.min(...load), 2), max: round(Math.max(...load), 2) },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = performance.now();
  const figures = await run(Number(process.argv[2] ?? 10));
  console.log(JSON.stringify(figures, null, 2));
  writeResultsSection({
    name: 'ocr-incremental',
    title: 'OCR in proportion to what changed: a full terminal, one line typed (issue 35.2)',
    targets: 'vm_find_text / vm_wait {for: text} after typing one line into a full 1280×800 terminal ≤ 300 ms p50; a first read no slower than a whole read; corpus recall and precision unchanged (bench:ocr); beside the floor (decode + preprocessing) in the same run',
    figures,
    seconds: (performance.now() - started) / 1000,
    command: 'node bench/ocr-incremental.mjs',
    after: 'ocr',
  });
}
