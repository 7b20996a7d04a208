// OCR on the rendered corpus (bench/ocr-corpus.mjs): recall, precision and latency per variant,
// in one run, on the same screens. No server or VM: this measures the engine core's text tools
// run on (vm_find_text's p50 at 1280×800 is this plus the screenshot, see the desktop bench).
//   naive:  tesseract on the colour PNG as captured, its defaults (psm 3, every core)
//   ours:   @vmhub/core/ocr's createTesseractEngine() defaults, from the decoded pixels
//   floor:  the capture-side cost only: PNG decode + prepareForOcr, no OCR
//   ours-*: one default changed at a time, to show what each choice buys (ours-no-bitmap is the
//           engine before bitmap-font detection; ours-bitmap-always applies it to every screen)
//   ours-incremental: cachedOcr remembering the same screen with a band of rows (15 % of the
//           height, at 40 %) painted over, so the screen is read in proportion to what changed
//           (issue 35.2): its words must score as a whole read's; the timing is the band's read
// A truth word is found when a recognised word has the same text and each box holds the other's
// centre; precision is the share of recognised words that are such a find.
//   node bench/ocr.mjs [variant...]        (prints JSON; bench/run.mjs ocr writes RESULTS.md)
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { percentile, round } from './lib.mjs';
import { renderCorpus } from './ocr-corpus.mjs';
import { cachedOcr, createTesseractEngine, prepareForOcr, parseTsv } from '../packages/core/dist/ocr/index.js';

const require = createRequire(new URL('../packages/core/package.json', import.meta.url));
const sharp = require('sharp');

const VARIANTS = {
  naive: { run: naive },
  ours: { options: {} },
  floor: { floor: true },
  'ours-1-process': { options: { parallel: 1 } },
  'ours-1-process-omp2': { options: { parallel: 1, threads: 2 } },
  'ours-scale1': { options: { prepare: { scale: 1 } } },
  'ours-global-invert': { options: { prepare: { polarity: 'global' } } },
  'ours-no-invert': { options: { prepare: { polarity: 'none' } } },
  'ours-psm3': { options: { psm: 3 } },
  'ours-psm6': { options: { psm: 6 } },
  'ours-no-bitmap': { options: { prepare: { bitmap: false } } },
  'ours-bitmap-always': { options: { prepare: { bitmap: true } } },
  'ours-incremental': { options: {}, incremental: true },
};

/** `image` with rows [40 %, 55 %) of its height painted the colour of its top-left pixel. */
function paintedOver(image) {
  const data = Buffer.from(image.data), stride = image.width * image.channels;
  for (let y = Math.floor(image.height * 0.4); y < Math.floor(image.height * 0.55); y++) {
    for (let i = 0; i < stride; i++) data[y * stride + i] = data[i % image.channels];
  }
  return { ...image, data };
}

function tesseract(args, input, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('tesseract', args, { env: { ...process.env, ...env } });
    const out = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out).toString()) : reject(new Error(`tesseract exit ${code}`))));
    child.stdin.end(input);
  });
}

async function naive(screen) {
  return parseTsv(await tesseract(['stdin', 'stdout', 'tsv'], screen.png, {}));
}

async function decode(png) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

function score(truth, words) {
  const used = new Set();
  let found = 0;
  const inside = (p, b) => p.x >= b.x && p.x <= b.x + b.width && p.y >= b.y && p.y <= b.y + b.height;
  const centre = (b) => ({ x: b.x + b.width / 2, y: b.y + b.height / 2 });
  for (const t of truth) {
    const i = words.findIndex((w, k) => !used.has(k) && w.text === t.text && inside(centre(t), w) && inside(centre(w), t));
    if (i >= 0) { used.add(i); found++; }
  }
  return { found, recognised: words.length };
}

function summarise(rows) {
  const truth = rows.reduce((n, r) => n + r.truth, 0), found = rows.reduce((n, r) => n + r.found, 0), recognised = rows.reduce((n, r) => n + r.recognised, 0);
  const ms = rows.map((r) => r.ms);
  return { screens: rows.length, words: truth, recall: round(found / truth, 3), precision: recognised ? round(found / recognised, 3) : null, p50_ms: round(percentile(ms, 50)), p95_ms: round(percentile(ms, 95)) };
}

export async function run(names = Object.keys(VARIANTS)) {
  const screens = await renderCorpus();
  const results = {};
  const byFont = {};
  for (const name of names) {
    const v = VARIANTS[name];
    const engine = v.options && createTesseractEngine(v.options);
    const rows = [];
    for (const screen of screens) {
      let started = performance.now();
      let words = [];
      if (v.incremental) {
        const cache = cachedOcr(engine);
        await cache.recognize(paintedOver(await decode(screen.png)));
        started = performance.now();
        words = await cache.recognize(await decode(screen.png));
      } else if (v.run) words = await v.run(screen);
      else {
        const image = await decode(screen.png);
        if (v.floor) await prepareForOcr(image);
        else words = await engine.recognize(image);
      }
      const ms = performance.now() - started;
      const { found, recognised } = score(screen.truth, words);
      rows.push({ kind: screen.kind, theme: screen.theme, truth: screen.truth.length, found, recognised, ms });
      if (name === 'ours' || name === 'naive') {
        // recall per font, size band and theme, for the notes
        for (const t of screen.truth) {
          const key = `${name} ${t.font} ${t.size <= 13 ? '10-13' : t.size <= 16 ? '14-16' : '17-20'}px`;
          const hit = score([t], words).found;
          byFont[key] ??= { words: 0, found: 0 };
          byFont[key].words++; byFont[key].found += hit;
        }
      }
    }
    const desktop = rows.filter((r) => r.kind === 'desktop');
    const vga = rows.filter((r) => r.kind === 'vga');
    results[name] = v.floor
      ? { desktop_1280x800: { p50_ms: summarise(desktop).p50_ms, p95_ms: summarise(desktop).p95_ms }, vga_720x400: { p50_ms: summarise(vga).p50_ms, p95_ms: summarise(vga).p95_ms } }
      : {
          desktop_1280x800: summarise(desktop),
          ...Object.fromEntries(['dark', 'light', 'mixed'].map((theme) => [`desktop_${theme}`, (({ recall, precision }) => ({ recall, precision }))(summarise(desktop.filter((r) => r.theme === theme)))])),
          vga_720x400: vga.length ? summarise(vga) : 'no VGA font: apt install console-setup-linux',
        };
    console.error(`[ocr] ${name}: ${JSON.stringify(results[name].desktop_1280x800)}`);
  }
  const recallByFont = Object.fromEntries(Object.entries(byFont).sort().map(([k, v]) => [k, `${round(v.found / v.words, 3)} of ${v.words}`]));
  return { corpus: { screens: screens.length, words: screens.reduce((n, s) => n + s.truth.length, 0), seed: 16 }, variants: results, recall_by_font: recallByFont };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(process.argv.length > 2 ? process.argv.slice(2) : undefined), null, 2));
