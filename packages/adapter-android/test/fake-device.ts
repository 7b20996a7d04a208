/**
 * A protocol-real, tool-fake Android for fast tests: the REAL adbd (bookworm-backports) on a free
 * port with a PATH whose first directory holds stand-ins for Android's tools (one Node script
 * linked under each name). They answer in AOSP's formats (/work/notes/android-contract.md) and
 * keep what a device would show: the text typed into "the focused field" (input text with
 * Android's %s rule, KEYCODE_ENTER, KEYCODE_PASTE of the clipboard), the clipboard (Clipper's
 * broadcast), every call's argv. This checks what the adapter sends; the android-standin golden
 * (conformance.test.ts) checks effects on a real display.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { startAdbd, tempDir } from '@vmhub/test-kit';

export const TOOLS = ['screencap', 'input', 'wm', 'dumpsys', 'uiautomator', 'am', 'monkey', 'pm', 'pidof', 'getprop'];

/** A solid-colour RGB PNG of w×h (for screencap). */
export function solidPng(w: number, h: number, rgb: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer): number => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.alloc(1 + w * 3);
  for (let x = 0; x < w; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

// The tools: one script, dispatching on the name it was called by. State lives in $FAKE_STATE.
const TOOL_SCRIPT = String.raw`
const fs = require('fs'), path = require('path');
const S = process.env.FAKE_STATE, tool = path.basename(process.argv[1]), a = process.argv.slice(2);
const p = (f) => path.join(S, f);
fs.appendFileSync(p('calls.jsonl'), JSON.stringify([tool, ...a]) + '\n');
const out = (s) => process.stdout.write(s);
const typed = (s) => fs.appendFileSync(p('typed.txt'), s);
const sendText = (arg) => { const b = [...arg]; let e = false; for (let i = 0; i < b.length; i++) { if (e) { e = false; if (b[i] === 's') { b[i] = ' '; b.splice(--i, 1); } } if (b[i] === '%') e = true; } return b.join(''); };
const KEYTEXT = { KEYCODE_ENTER: '\n', KEYCODE_TAB: '\t' };
switch (tool) {
  case 'screencap': out(fs.readFileSync(p('screen.png'))); break;
  case 'wm': out(fs.readFileSync(p('wm-size.txt'))); break;
  case 'getprop': out('34\n'); break;
  case 'pidof': out('4242\n'); break;
  case 'pm': if (a[0] === 'list' && fs.existsSync(p('clipper-installed'))) out('package:ca.zgrs.clipper\n'); break;
  case 'dumpsys': out(fs.readFileSync(p(a[0] === 'input' ? 'dumpsys-input.txt' : 'dumpsys-window.txt'))); break;
  case 'input':
    if (a.length === 0) { out(fs.readFileSync(p('input-usage.txt'))); process.exit(1); }
    if (a[0] === 'text') typed(sendText(a[1]));
    if (a[0] === 'keyevent') for (const k of a.slice(1)) typed(k === 'KEYCODE_PASTE' ? fs.readFileSync(p('clipboard.txt'), 'utf8') : (KEYTEXT[k] ?? ''));
    if (a[0] === 'keycombination' && !fs.readFileSync(p('input-usage.txt'), 'utf8').includes('keycombination')) { process.stderr.write('Error: Unknown command: keycombination\n'); process.exit(1); }
    break;
  case 'am':
    if (a[0] === 'broadcast') {
      const i = a.indexOf('-e');
      if (!fs.existsSync(p('clipper-installed'))) { out('Broadcasting: Intent { act=' + a[2] + ' flg=0x400000 (has extras) }\nBroadcast completed: result=0\n'); break; }
      fs.writeFileSync(p('clipboard.txt'), a[i + 2]);
      out('Broadcasting: Intent { act=' + a[2] + ' flg=0x400000 (has extras) }\nBroadcast completed: result=-1, data="Text is copied into clipboard."\n');
    } else if (a[0] === 'start') {
      const cmp = a[a.indexOf('-n') + 1];
      if (cmp && cmp.endsWith('Nope')) { out('Starting: Intent { cmp=' + cmp + ' }\n'); process.stderr.write('Error type 3\nError: Activity class {' + cmp + '} does not exist.\n'); break; }
      out('Starting: Intent { cmp=' + cmp + ' }\nStatus: ok\nLaunchState: COLD\nActivity: ' + cmp + '\nTotalTime: 412\nWaitTime: 415\nComplete\n');
    }
    break;
  case 'monkey':
    if (a[1] !== 'com.example.notes') { process.stderr.write('** No activities found to run, monkey aborted.\n'); process.exit(252); }
    out('  bash arg: -p\n  bash arg: com.example.notes\nEvents injected: 1\n## Network stats: elapsed time=16ms (0ms mobile, 0ms wifi, 16ms not connected)\n');
    break;
  case 'uiautomator': {
    const n = Number(fs.existsSync(p('ui-count')) ? fs.readFileSync(p('ui-count'), 'utf8') : '0');
    fs.writeFileSync(p('ui-count'), String(n + 1));
    if (n < Number(fs.readFileSync(p('ui-failures'), 'utf8'))) { process.stderr.write('ERROR: null root node returned by UiTestAutomationBridge.\n'); break; }
    fs.copyFileSync(p('ui.xml'), a[1]);
    out('UI hierchary dumped to: ' + a[1] + '\n');
    break;
  }
}
`;

export interface FakeDevice {
  port: number;
  state: string;
  home: string;
  calls(): string[][];
  typed(): string;
  clipboard(): string;
  write(file: string, data: string | Buffer): void;
  stop(): Promise<void>;
}

export async function startFakeDevice(files: Record<string, string | Buffer>): Promise<FakeDevice> {
  const dir = tempDir('vmhub-test-android-fake-');
  const root = dir.path;
  const bin = join(root, 'bin');
  const state = join(root, 'state');
  const home = join(root, 'data-local-tmp');
  for (const d of [bin, state, home]) mkdirSync(d);
  const script = join(root, 'tool.cjs');
  writeFileSync(script, `#!${process.execPath}\n${TOOL_SCRIPT}`);
  chmodSync(script, 0o755);
  for (const t of TOOLS) symlinkSync(script, join(bin, t));
  writeFileSync(join(state, 'ui-failures'), '0');
  for (const [f, data] of Object.entries(files)) writeFileSync(join(state, f), data);
  const adbd = await startAdbd({ env: { FAKE_STATE: state, PATH: `${bin}:${process.env.PATH}` } });
  const read = (f: string): string => (existsSync(join(state, f)) ? readFileSync(join(state, f), 'utf8') : '');
  return {
    port: adbd.port, state, home,
    calls: () => read('calls.jsonl').split('\n').filter(Boolean).map((l) => JSON.parse(l) as string[]),
    typed: () => read('typed.txt'),
    clipboard: () => read('clipboard.txt'),
    write: (f, data) => writeFileSync(join(state, f), data),
    async stop() {
      await adbd.stop();
      dir.cleanup();
    },
  };
}
