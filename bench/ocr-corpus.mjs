// The OCR corpus: screens rendered here with known words and boxes, deterministic for a seed.
//   desktop: 1280×800, DejaVu Sans / Sans Mono / Serif and Nimbus Sans / Mono PS / Roman at
//            10–20 px, dark, light and mixed themes (dark panels beside light windows, coloured
//            buttons, low-contrast secondary text);
//   vga:     720×400, 80×25 cells of 9×16, the VGA console font (console-setup-linux's
//            Uni2-VGA16.psf.gz, drawn here glyph by glyph), light grey on black, as QEMU shows.
// Ground truth is each drawn word (a run of non-space characters) with its ink box.
// Run alone to look at it:  node bench/ocr-corpus.mjs [outdir]  (writes PNGs and truth JSON)
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';

const require = createRequire(new URL('../packages/core/package.json', import.meta.url));
const sharp = require('sharp');

export const VGA_FONT = '/usr/share/consolefonts/Uni2-VGA16.psf.gz';

const FONTS = [
  { family: 'DejaVu Sans', space: 0.32 }, { family: 'DejaVu Sans Mono', space: 0.6 }, { family: 'DejaVu Serif', space: 0.32 },
  { family: 'Nimbus Sans', space: 0.28 }, { family: 'Nimbus Mono PS', space: 0.6 }, { family: 'Nimbus Roman', space: 0.25 },
];

// Foreground / background pairs as themes draw them: primary and secondary text, buttons.
const DARK = [['#d4d4d4', '#1e1e1e'], ['#cccccc', '#252526'], ['#9d9d9d', '#2d2d30'], ['#ffffff', '#333333'], ['#e0e0e0', '#0e639c'], ['#8fbc8f', '#1a1a1a']];
const LIGHT = [['#202020', '#ffffff'], ['#333333', '#f3f3f3'], ['#6a6a6a', '#ffffff'], ['#000000', '#e8e8e8'], ['#ffffff', '#0a64ad'], ['#1f4e79', '#f8f8f8']];

const WORDS = `File Edit View Selection Go Run Terminal Help Settings Preferences Downloads Documents Desktop
Pictures Music Videos Trash Home Search Open Save Close Cancel Apply Install Update Upgrade Remove
Delete Rename Copy Paste Undo Redo Find Replace Window Tools Options Account Sign Login Logout Next
Back Finish Continue Retry Ignore Browse Upload Export Import Print Share Properties Details Status
Network Wireless Bluetooth Display Sound Power Keyboard Mouse Printers Users Privacy Security Storage
Applications Activities Files Firefox Chromium Calculator Editor Console Monitor Software Updates
available installed running stopped failed success warning error connected disconnected enabled
disabled loading ready waiting pending complete unknown server client request response message
project folder archive backup config system service process memory kernel module driver device
package version release branch commit merge build test deploy debug output input source target
report.pdf notes.txt main.c index.html config.yaml README.md setup.sh 2026-12-01 12:45 3.5 GB
42 100% v2.4.1 localhost 127.0.0.1 /etc/hosts /usr/bin ~/projects user@vmhub`.split(/\s+/);

const VGA_LINES = [
  () => `root@vmhub:~# ${pick(['ls -la /etc', 'cat /etc/hostname', 'uname -a', 'df -h', 'ps aux', 'ip addr show', 'free -m', 'echo hello world'])}`,
  () => `[ ${(rand() * 9).toFixed(6).padStart(11)}] ${pick(['virtio_net virtio0 eth0: renamed', 'EXT4-fs (vda1): mounted filesystem', 'Freeing unused kernel memory', 'random: crng init done', 'systemd[1]: Started Journal Service', 'usb 1-1: new high-speed device'])}`,
  () => `${pick(['drwxr-xr-x', '-rw-r--r--', 'lrwxrwxrwx'])}  ${1 + Math.floor(rand() * 9)} root root ${String(Math.floor(rand() * 99999)).padStart(6)} Dec  1 ${pick(['09:14', '12:45', '23:01'])} ${pick(['hosts', 'passwd', 'fstab', 'hostname', 'resolv.conf', 'os-release', 'profile', 'shadow'])}`,
  () => `${pick(['Filesystem', 'tmpfs', '/dev/vda1', 'devtmpfs'])}  ${Math.floor(rand() * 900) + 10}M  ${Math.floor(rand() * 90) + 1}M  ${Math.floor(rand() * 900)}M  ${Math.floor(rand() * 99)}% ${pick(['/', '/run', '/dev', '/boot'])}`,
  () => `${pick(['Welcome to', 'Debian GNU/Linux', 'vmhub login:', 'Password:', 'Last login: Tue Dec  1', 'The programs included with'])} ${pick(['tty1', 'the system', 'root', 'ttyS0', ''])}`.trim(),
];

let state = 1;
function rand() { // mulberry32
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function pick(list) { return list[Math.floor(rand() * list.length)]; }
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Where one word's ink sits relative to (x, baseline), measured once per font, size and text. */
const inkCache = new Map();
async function inkOf(family, size, text) {
  const key = `${family}|${size}|${text}`;
  if (inkCache.has(key)) return inkCache.get(key);
  const w = Math.ceil(text.length * size * 0.9) + 20, h = Math.ceil(size * 2.5), base = Math.ceil(size * 1.7);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="#fff"/><text x="10" y="${base}" font-family="${family}" font-size="${size}" fill="#000">${esc(text)}</text></svg>`;
  const { data } = await sharp(Buffer.from(svg)).toColourspace('b-w').extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  let x0 = Infinity, y0 = Infinity, x1 = -1, y1 = -1;
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (data[y * w + x] < 128) { x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y); }
  const ink = x1 < 0 ? null : { dx: x0 - 10, dy: y0 - base, width: x1 - x0 + 1, height: y1 - y0 + 1 };
  inkCache.set(key, ink);
  return ink;
}

async function desktopScreen(index) {
  const W = 1280, H = 800;
  const theme = ['dark', 'light', 'mixed'][index % 3];
  const panels = [];
  // a top bar, a sidebar and a main window; mixed screens pair a dark bar and sidebar with a light window
  const palette = (role) => theme === 'dark' ? DARK : theme === 'light' ? LIGHT : role === 'main' ? LIGHT : DARK;
  const sideW = 200 + Math.floor(rand() * 120);
  panels.push({ x: 0, y: 0, w: W, h: 32, role: 'bar' });
  panels.push({ x: 0, y: 32, w: sideW, h: H - 32, role: 'side' });
  panels.push({ x: sideW, y: 32, w: W - sideW, h: H - 32, role: 'main' });
  const elements = [];
  const truth = [];
  for (const p of panels) {
    const colours = palette(p.role);
    const [, bg] = colours[p.role === 'main' ? 0 : 1];
    elements.push(`<rect x="${p.x}" y="${p.y}" width="${p.w}" height="${p.h}" fill="${bg}"/>`);
    const font = pick(FONTS);
    const size = p.role === 'bar' ? 10 + Math.floor(rand() * 5) : 10 + Math.floor(rand() * 11);
    const lineH = Math.round(size * (p.role === 'side' ? 2.2 : 1.7));
    for (let baseline = p.y + Math.round(size * 1.5); baseline + size * 0.5 < p.y + p.h; baseline += lineH) {
      if (rand() < 0.15) continue; // blank rows
      let x = p.x + 12 + Math.floor(rand() * 20);
      // a row is one to four runs (menu items, a label and its value, a sentence), far apart
      const runs = p.role === 'side' ? 1 : 1 + Math.floor(rand() * (p.role === 'bar' ? 6 : 3));
      for (let r = 0; r < runs; r++) {
        const button = p.role === 'main' && rand() < 0.08;
        let [fg, runBg] = button ? colours[4] : pick(colours.slice(0, 4));
        if (!button) runBg = bg; // text sits on the panel; only buttons bring their own background
        if (!button && contrast(fg, bg) < 2.5) fg = colours[0][0];
        const n = p.role === 'bar' ? 1 : 1 + Math.floor(rand() * (p.role === 'side' ? 2 : 7));
        const words = Array.from({ length: n }, () => pick(WORDS));
        const placed = [];
        let cx = x;
        for (const text of words) {
          const ink = await inkOf(font.family, size, text);
          if (!ink) continue;
          placed.push({ text, x: cx, ink });
          cx += ink.dx + ink.width + Math.round(size * font.space) + 1;
        }
        if (cx > p.x + p.w - 10) break;
        if (button) {
          elements.push(`<rect x="${x - 8}" y="${baseline - Math.round(size * 1.1)}" width="${cx - x + 12}" height="${Math.round(size * 1.5)}" rx="3" fill="${runBg}"/>`);
        }
        for (const w of placed) {
          elements.push(`<text x="${w.x}" y="${baseline}" font-family="${font.family}" font-size="${size}" fill="${fg}">${esc(w.text)}</text>`);
          truth.push({ text: w.text, x: w.x + w.ink.dx, y: baseline + w.ink.dy, width: w.ink.width, height: w.ink.height, font: font.family, size, theme: luminance(runBg) < 0.4 ? 'dark' : 'light' });
        }
        x = cx + size * (3 + Math.floor(rand() * 6));
        if (x > p.x + p.w - 60) break;
      }
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${elements.join('')}</svg>`;
  const png = await sharp(Buffer.from(svg)).removeAlpha().png({ compressionLevel: 1 }).toBuffer();
  return { name: `desktop-${String(index).padStart(2, '0')}-${theme}`, kind: 'desktop', theme, width: W, height: H, png, truth };
}

function loadPsf(path) {
  const raw = gunzipSync(readFileSync(path));
  let glyphs, count, height, width, bytesPerRow, tableAt, psf1;
  if (raw[0] === 0x36 && raw[1] === 0x04) { // PSF1: 4-byte header
    psf1 = true; count = raw[2] & 1 ? 512 : 256; height = raw[3]; width = 8; bytesPerRow = 1;
    glyphs = 4; tableAt = raw[2] & 2 ? 4 + count * height : -1;
  } else if (raw.readUInt32LE(0) === 0x864ab572) { // PSF2
    psf1 = false; const headerSize = raw.readUInt32LE(8); const flags = raw.readUInt32LE(12);
    count = raw.readUInt32LE(16); const size = raw.readUInt32LE(20); height = raw.readUInt32LE(24); width = raw.readUInt32LE(28);
    bytesPerRow = Math.ceil(width / 8); glyphs = headerSize; tableAt = flags & 1 ? headerSize + count * size : -1;
  } else throw new Error(`${path} is not a PSF font`);
  const map = new Map();
  if (tableAt >= 0) {
    let at = tableAt;
    for (let g = 0; g < count && at < raw.length; g++) {
      if (psf1) {
        for (;;) { const u = raw.readUInt16LE(at); at += 2; if (u === 0xffff) break; if (u !== 0xfffe && !map.has(u)) map.set(u, g); }
      } else {
        while (at < raw.length && raw[at] !== 0xff) { const cp = String.fromCodePoint(...[raw.toString('utf8', at, at + 4)].map((s) => s.codePointAt(0))).codePointAt(0); if (!map.has(cp)) map.set(cp, g); at += Buffer.byteLength(String.fromCodePoint(cp)); }
        at++;
      }
    }
  } else for (let g = 0; g < count; g++) map.set(g, g);
  return { raw, glyphs, height, width, bytesPerRow, map };
}

function vgaScreen(font, index) {
  const COLS = 80, ROWS = 25, CW = 9, CH = font.height, W = COLS * CW, H = ROWS * CH;
  const fg = [0xaa, 0xaa, 0xaa];
  const px = Buffer.alloc(W * H * 3);
  const truth = [];
  const start = Math.floor(rand() * 3);
  for (let row = start; row < ROWS; row++) {
    if (rand() < 0.12) continue;
    const text = pick(VGA_LINES)().slice(0, COLS);
    for (let col = 0; col < text.length; col++) {
      const g = font.map.get(text.codePointAt(col)) ?? font.map.get(0x3f);
      for (let gy = 0; gy < CH; gy++) {
        const bits = font.raw[font.glyphs + g * CH * font.bytesPerRow + gy * font.bytesPerRow];
        for (let gx = 0; gx < 8; gx++) if (bits & (0x80 >> gx)) {
          const i = ((row * CH + gy) * W + col * CW + gx) * 3;
          px[i] = fg[0]; px[i + 1] = fg[1]; px[i + 2] = fg[2];
        }
      }
    }
    for (const m of text.matchAll(/\S+/g)) {
      truth.push({ text: m[0], x: m.index * CW, y: row * CH + 2, width: m[0].length * CW - 1, height: CH - 4, font: 'VGA 9x16', size: 16, theme: 'dark' });
    }
  }
  return { name: `vga-${String(index).padStart(2, '0')}`, kind: 'vga', theme: 'dark', width: W, height: H, raw: px, truth };
}

export async function renderCorpus({ seed = 16, desktop = 12, vga = 6 } = {}) {
  state = seed;
  const screens = [];
  for (let i = 0; i < desktop; i++) screens.push(await desktopScreen(i));
  if (vga && existsSync(VGA_FONT)) {
    const font = loadPsf(VGA_FONT);
    for (let i = 0; i < vga; i++) {
      const s = vgaScreen(font, i);
      s.png = await sharp(s.raw, { raw: { width: s.width, height: s.height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
      delete s.raw;
      screens.push(s);
    }
  }
  return screens;
}

function luminance(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a, b) {
  const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (l1 + 0.05) / (l2 + 0.05);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2] ?? 'ocr-corpus';
  mkdirSync(out, { recursive: true });
  const screens = await renderCorpus();
  for (const s of screens) {
    writeFileSync(join(out, `${s.name}.png`), s.png);
    writeFileSync(join(out, `${s.name}.json`), JSON.stringify(s.truth, null, 1));
  }
  console.log(`${screens.length} screens, ${screens.reduce((n, s) => n + s.truth.length, 0)} words in ${out}`);
}
