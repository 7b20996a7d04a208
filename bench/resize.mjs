#!/usr/bin/env node
// Resize kernel and format for screen content (issue 19, item 1): a real X desktop (Xvfb at
// 1920×1080 and 2560×1440, openbox, xterms full of text, an xclock, an xlogo) captured here, then
// downscaled to what vm_screenshot sends by default (1280 wide) with each libvips kernel, and
// encoded as vm_screenshot encodes (PNG, compression 6, no adaptive filtering; JPEG/WebP q80).
// For each: bytes, resize+encode time (median of 7), and how much of the text survives: the
// share of the words tesseract reads on the native frame that it still reads on the downscaled
// one (same OCR path as vm_find_text). Side by side in one run: the native frame (floor for
// legibility) and lanczos3 (what core used).
//
//   node bench/resize.mjs          (figures as JSON on stdout; node bench/run.mjs resize writes RESULTS.md)
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { round } from './lib.mjs';

const require = createRequire(new URL('../packages/core/package.json', import.meta.url));
const sharp = require('sharp');
const ocr = await import(fileURLToPath(new URL('../packages/core/dist/ocr/index.js', import.meta.url)));

const KERNELS = ['nearest', 'linear', 'cubic', 'mitchell', 'lanczos2', 'lanczos3'];
const SIZES = [[1920, 1080], [2560, 1440]];
const TARGET_W = 1280;

async function desktop(width, height, display) {
  const env = { ...process.env, DISPLAY: `:${display}` };
  const procs = [spawn('Xvfb', [`:${display}`, '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp'], { stdio: 'ignore' })];
  for (let i = 0; i < 100; i++) { try { execFileSync('xdpyinfo', [], { env, stdio: 'ignore' }); break; } catch { await sleep(100); } }
  const start = (argv) => procs.push(spawn(argv[0], argv.slice(1), { env, stdio: 'ignore' }));
  start(['openbox']);
  const cols = Math.floor(width / 700);
  const text = ['ls -l /usr/bin | head -60', 'dpkg -l | head -70', 'cat /etc/services | head -80', 'ps -eo pid,user,comm,args | head -70', 'df -h; mount | head -40; env | sort | head -30', 'ls -la /etc | head -70'];
  for (let i = 0; i < cols * 2 && i < text.length; i++) {
    const x = (i % cols) * 700, y = Math.floor(i / cols) * Math.floor(height / 2);
    start(['xterm', '-geometry', `110x${Math.floor(height / 2 / 13) - 3}+${x}+${y}`, '-fa', i % 2 ? 'DejaVu Sans Mono' : 'Monospace', '-fs', String(9 + (i % 3)), '-bg', i % 2 ? 'white' : 'black', '-fg', i % 2 ? 'black' : '#d0d0d0', '-e', 'sh', '-c', `${text[i]}; sleep 600`]);
  }
  start(['xclock', '-geometry', `200x200+${width - 220}+20`]);
  start(['xlogo', '-geometry', `200x200+${width - 220}+240`]);
  // Every window mapped and drawn (bounded): count the xterms on the root, then let them paint.
  const want = Math.min(cols * 2, text.length);
  for (let i = 0; i < 300; i++) {
    const tree = execFileSync('xwininfo', ['-root', '-tree'], { env }).toString();
    if ((tree.match(/"xterm"/g) ?? []).length >= want) break;
    await sleep(100);
  }
  await sleep(3000);
  const rgb = execFileSync('import', ['-window', 'root', '-depth', '8', 'rgb:-'], { env, maxBuffer: 64 * 1024 * 1024 });
  for (const p of procs.reverse()) p.kill('SIGKILL');
  return rgb;
}

async function shape(rgb, width, height, kernel, format) {
  const tw = TARGET_W, th = Math.round(height * (TARGET_W / width));
  let img = sharp(rgb, { raw: { width, height, channels: 3 } });
  if (kernel) img = img.resize(tw, th, { fit: 'fill', kernel });
  if (format === 'jpeg') return img.jpeg({ quality: 80 }).toBuffer();
  if (format === 'webp') return img.webp({ quality: 80, effort: 2 }).toBuffer();
  if (format === 'png-palette') return img.png({ compressionLevel: 6, adaptiveFiltering: false, palette: true, effort: 1 }).toBuffer();
  return img.png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
}

async function timed(fn, n = 7) {
  const ms = [];
  let out;
  for (let i = 0; i < n; i++) { const t = performance.now(); out = await fn(); ms.push(performance.now() - t); }
  ms.sort((a, b) => a - b);
  return { out, ms: ms[Math.floor(n / 2)] };
}

const engine = ocr.createTesseractEngine({ timeoutMs: 300_000 });
async function words(png) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const found = await engine.recognize({ data, width: info.width, height: info.height, channels: info.channels }, {});
  return new Set(found.filter((w) => w.text.length >= 3 && w.confidence >= 0.6).map((w) => w.text));
}

const results = { measured_at: new Date().toISOString(), load: execFileSync('cat', ['/proc/loadavg']).toString().trim(), sizes: {} };
let display = 140;
for (const [w, h] of SIZES) {
  const rgb = await desktop(w, h, display++);
  const native = await timed(() => shape(rgb, w, h, undefined, 'png'), 3);
  const truth = await words(native.out);
  const nativePalette = await timed(() => shape(rgb, w, h, undefined, 'png-palette'), 3);
  const rows = [{ kernel: 'native (no resize)', format: 'png', bytes: native.out.length, ms: round(native.ms), text_kept: 1 }, { kernel: 'native (no resize)', format: 'png-palette', bytes: nativePalette.out.length, ms: round(nativePalette.ms), text_kept: null }];
  for (const kernel of KERNELS) {
    for (const format of kernel === 'lanczos3' || kernel === 'linear' ? ['png', 'png-palette', 'webp', 'jpeg'] : ['png', 'png-palette']) {
      const r = await timed(() => shape(rgb, w, h, kernel, format));
      const seen = await words(format.startsWith('png') ? r.out : await sharp(r.out).png().toBuffer());
      let kept = 0;
      for (const t of truth) if (seen.has(t)) kept++;
      rows.push({ kernel, format, bytes: r.out.length, ms: round(r.ms), text_kept: round(kept / Math.max(1, truth.size), 3) });
    }
  }
  results.sizes[`${w}x${h}`] = { native_words: truth.size, to: `${TARGET_W}x${Math.round(h * TARGET_W / w)}`, rows };
  console.error(`[resize] ${w}x${h}: ${truth.size} words on the native frame`);
  for (const r of rows) console.error(`  ${r.kernel.padEnd(20)} ${r.format.padEnd(5)} ${String(r.bytes).padStart(8)} B ${String(r.ms).padStart(6)} ms  text kept ${r.text_kept}`);
}
results.load_after = execFileSync('cat', ['/proc/loadavg']).toString().trim();
console.log(JSON.stringify(results, null, 1));
