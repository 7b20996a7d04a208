#!/usr/bin/env node
// Stand-ins for macOS's screencapture, cliclick, osascript and open, backed by the X display
// (xwd, xdotool, wmctrl) — for the macos-standin golden and the adapter's tests, NOT macOS.
// They accept exactly the flags and scripts @vmhub/adapter-macos sends: osascript runs only the
// adapter's own scripts, recognised by their first line ("-- vmhub:<name>"). Node 18+, no deps.
'use strict';
const { execFileSync, spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const zlib = require('node:zlib');

const env = { ...process.env, DISPLAY: process.env.DISPLAY || ':0', LC_ALL: 'C.UTF-8' };
const x = (cmd, args, input) => execFileSync(cmd, args, { env, input, maxBuffer: 512 * 1024 * 1024, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'inherit'] });
const xdotool = (...args) => x('xdotool', args);
const die = (msg, code = 1) => { process.stderr.write(`${msg}\n`); process.exit(code); };

// ---- screencapture [-x] [-C] [-t png] FILE ------------------------------------------------------
function screencapture(args) {
  let file;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-x' || a === '-C' || a === '-o') continue;
    if (a === '-t') { if (args[++i] !== 'png') die(`stand-in screencapture writes png only, not ${args[i]}`); continue; }
    if (a.startsWith('-')) die(`stand-in screencapture: unsupported flag ${a}`);
    file = a;
  }
  if (!file) die('usage: screencapture [-x] [-C] [-t png] file');
  writeFileSync(file, xwdToPng(x('xwd', ['-root', '-silent'])));
}

function xwdToPng(d) {
  const f = (i) => d.readUInt32BE(i * 4);
  const headerSize = f(0), width = f(4), height = f(5), lsb = f(7) === 0, bpp = f(11) / 8, bpl = f(12), ncolors = f(19);
  const masks = [f(14), f(15), f(16)];
  if (f(2) !== 2 || (bpp !== 4 && bpp !== 3)) die('stand-in screencapture: only 24/32-bit ZPixmap XWD is supported');
  const shifts = masks.map((m) => { let s = 0; while (m && !(m & 1)) { m >>>= 1; s++; } return s; });
  const start = headerSize + ncolors * 12;
  const raw = Buffer.alloc((width * 3 + 1) * height);
  let o = 0;
  for (let y = 0; y < height; y++) {
    raw[o++] = 0;
    let p = start + y * bpl;
    for (let xx = 0; xx < width; xx++, p += bpp) {
      const v = bpp === 4 ? (lsb ? d.readUInt32LE(p) : d.readUInt32BE(p)) : (lsb ? d[p] | (d[p + 1] << 8) | (d[p + 2] << 16) : (d[p] << 16) | (d[p + 1] << 8) | d[p + 2]);
      for (let c = 0; c < 3; c++) raw[o++] = ((v & masks[c]) >>> shifts[c]) & 0xff;
    }
  }
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0); ihdr.writeUInt32BE(height, 4); ihdr[8] = 8; ihdr[9] = 2;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}

let CRC;
function crc32(buf) {
  if (!CRC) { CRC = new Int32Array(256); for (let n = 0; n < 256; n++) { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; CRC[n] = c; } }
  let c = -1;
  for (let i = 0; i < buf.length; i++) c = CRC[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return c ^ -1;
}

// ---- cliclick c:x,y dc: tc: rc: m: dd: dm: du: kd:mods ku:mods kp:key t:text w:ms ------------------
const CLI_MODS = { cmd: 'super', alt: 'alt', ctrl: 'ctrl', shift: 'shift', fn: null };
const CLI_KEYS = { return: 'Return', esc: 'Escape', tab: 'Tab', space: 'space', delete: 'BackSpace', 'fwd-delete': 'Delete', home: 'Home', end: 'End', 'page-up': 'Prior', 'page-down': 'Next', 'arrow-up': 'Up', 'arrow-down': 'Down', 'arrow-left': 'Left', 'arrow-right': 'Right', enter: 'KP_Enter' };
function cliclick(args) {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-w' || a === '-e' || a === '-m') { i++; continue; }
    if (a === '-r') continue;
    const m = /^([a-z]+):(.*)$/s.exec(a);
    if (!m) die(`stand-in cliclick: cannot read command "${a}"`);
    const [, cmd, arg] = m;
    const at = () => { const p = /^(\d+),(\d+)$/.exec(arg); if (!p) die(`stand-in cliclick: ${cmd} wants x,y, got "${arg}"`); return [p[1], p[2]]; };
    const mods = () => arg.split(',').map((k) => { const v = CLI_MODS[k]; if (v === undefined) die(`stand-in cliclick: unknown modifier ${k}`); return v; }).filter(Boolean);
    switch (cmd) {
      case 'c': xdotool('mousemove', ...at(), 'click', '1'); break;
      case 'dc': xdotool('mousemove', ...at(), 'click', '--repeat', '2', '--delay', '60', '1'); break;
      case 'tc': xdotool('mousemove', ...at(), 'click', '--repeat', '3', '--delay', '60', '1'); break;
      case 'rc': xdotool('mousemove', ...at(), 'click', '3'); break;
      case 'm': xdotool('mousemove', ...at()); break;
      case 'dd': xdotool('mousemove', ...at(), 'mousedown', '1'); break;
      case 'dm': xdotool('mousemove', ...at()); break;
      case 'du': xdotool('mousemove', ...at(), 'mouseup', '1'); break;
      case 'kd': xdotool('keydown', ...mods()); break;
      case 'ku': xdotool('keyup', ...mods()); break;
      case 'kp': { const k = CLI_KEYS[arg] || (/^f\d+$/.test(arg) ? arg.toUpperCase() : undefined); if (!k) die(`stand-in cliclick: unknown key ${arg}`); xdotool('key', k); break; }
      case 't': xdotool('type', '--', arg); break;
      case 'w': execFileSync('sleep', [String(Number(arg) / 1000)]); break;
      default: die(`stand-in cliclick: unsupported command ${cmd}`);
    }
  }
}

// ---- osascript [-l JavaScript] -e LINE... [ARG...] — only vmhub's scripts ----------------------------
const MAC_CODES = { 36: 'Return', 76: 'KP_Enter', 48: 'Tab', 49: 'space', 51: 'BackSpace', 117: 'Delete', 53: 'Escape', 114: 'Help', 115: 'Home', 119: 'End', 116: 'Prior', 121: 'Next', 123: 'Left', 124: 'Right', 125: 'Down', 126: 'Up', 57: 'Caps_Lock' };
[122, 120, 99, 118, 96, 97, 98, 100, 101, 109, 103, 111, 105, 107, 113, 106, 64, 79, 80, 90].forEach((c, i) => { MAC_CODES[c] = `F${i + 1}`; });
const OSA_MODS = { cmd: 'super', shift: 'shift', option: 'alt', ctrl: 'ctrl' };
const keysymName = (ch) => (/^[A-Za-z0-9]$/.test(ch) ? ch : `U${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`);

function windows() {
  const active = (() => { try { return Number(xdotool('getactivewindow').toString().trim()); } catch { return -1; } })();
  const rows = x('wmctrl', ['-lpGx']).toString('utf8').split('\n').filter(Boolean).map((l) => {
    const m = /^(0x[0-9a-f]+)\s+(-?\d+)\s+(\d+)\s+(-?\d+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+\S+\s?(.*)$/.exec(l);
    return m && { id: m[1], pid: Number(m[3]), x: m[4], y: m[5], w: m[6], h: m[7], cls: m[8].split('.').pop(), title: m[9], active: Number.parseInt(m[1], 16) === active };
  }).filter(Boolean);
  // System Events lists a process's windows front to back: the active one first.
  const byPid = new Map();
  for (const r of rows) { if (!byPid.has(r.pid)) byPid.set(r.pid, []); byPid.get(r.pid).push(r); }
  for (const list of byPid.values()) { list.sort((a, b) => Number(b.active) - Number(a.active)); list.forEach((r, i) => { r.index = i + 1; }); }
  return rows;
}
const pick = (pid, index) => windows().find((w) => w.pid === Number(pid) && w.index === Number(index)) || die(`System Events got an error: Can't get window ${index} of process ${pid}. (-1719)`);

const SCRIPTS = {
  type(argv) {
    for (const t of argv) {
      if (t === '\n') xdotool('key', 'Return');
      else if (t === '\t') xdotool('key', 'Tab');
      else xdotool('type', '--delay', '12', '--', t);
    }
  },
  key([mods, kind, value]) {
    const held = mods === '-' ? [] : mods.split(',').map((m) => OSA_MODS[m]);
    if (kind === 'mods') { xdotool('keydown', ...held); xdotool('keyup', ...held.reverse()); return; }
    const k = kind === 'code' ? MAC_CODES[value] : keysymName(value);
    if (!k) die(`stand-in osascript: no key for key code ${value}`);
    xdotool('key', [...held, k].join('+'));
  },
  'list-windows'() {
    const out = windows().map((w) => [w.pid, w.index, w.cls, w.title, w.x, w.y, w.w, w.h, w.active && w.index === 1].join('\t'));
    process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
  },
  focus([pid, index]) { x('wmctrl', ['-ia', pick(pid, index).id]); },
  close([pid, index]) { x('wmctrl', ['-ic', pick(pid, index).id]); },
  scroll([dy, dx]) {
    const y = Number(dy), xx = Number(dx);
    if (y) xdotool('click', '--repeat', String(Math.abs(y)), y > 0 ? '4' : '5');
    if (xx) xdotool('click', '--repeat', String(Math.abs(xx)), xx > 0 ? '6' : '7');
  },
};

function osascript(args) {
  const lines = [];
  let i = 0;
  for (; i < args.length; i++) {
    if (args[i] === '-l') { i++; continue; }
    if (args[i] === '-e') { lines.push(args[++i]); continue; }
    break;
  }
  const m = /^(?:--|\/\/) vmhub:([a-z-]+)$/.exec(lines[0] || '');
  if (!m || !SCRIPTS[m[1]]) die('stand-in osascript runs only @vmhub/adapter-macos\'s own scripts (first line "-- vmhub:<name>"): this is not macOS');
  SCRIPTS[m[1]](args.slice(i));
}

// ---- open -a APP [--args ...] -------------------------------------------------------------------
function open(args) {
  if (args[0] !== '-a' || !args[1]) die('usage (stand-in): open -a app [--args ...]');
  const rest = args.slice(2);
  const extra = rest[0] === '--args' ? rest.slice(1) : rest;
  const which = (() => { try { return execFileSync('sh', ['-c', 'command -v "$1"', 'sh', args[1]], { env }).toString().trim(); } catch { return ''; } })();
  if (!which) die(`Unable to find application named '${args[1]}'`);
  spawn(which, extra, { env, detached: true, stdio: 'ignore' }).unref();
}

const TOOLS = { screencapture, cliclick, osascript, open };
const [tool, ...rest] = process.argv.slice(2);
if (!TOOLS[tool]) die(`usage: macos-tools.cjs ${Object.keys(TOOLS).join('|')} ...`);
try { TOOLS[tool](rest); } catch (err) { die(`${tool}: ${err.message}`); }
