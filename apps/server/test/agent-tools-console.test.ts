// Issue 16's agent tools (vm_wait, vm_find_text, vm_click by text and by mark, zoom, vm_batch)
// through the SDK client and the built server, on QEMU (TCG) with the console adapter and the
// tiny-console golden: the VGA text console read with QMP screendump, input through QMP. Nothing
// runs in the guest for vmhub; effects are read on the host in the guest's serial log: commands
// echo there, and the guest dumps its usb-tablet's evdev events there (`od … /dev/tablet`), so
// the pointer position is the ABS_X/ABS_Y the guest kernel received (0..32767 over the screen).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, errorCode, machineBox, type Session } from './harness.ts';
import { assertBatchRefused, assertFinalShotShows, leaseThenOcrOff, typeReturnSettle, zoom4, zoomedPixel } from './agent-tools-checks.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const box = machineBox('at-console', 'ac');
const stateDir = join(box.dir, 'state');
let s: Session;
let lease = '';
let screen = { width: 0, height: 0 };

// Real words in lower case, fixed (a run is repeatable): what OCR reads most reliably.
const WORDS = ['marmalade', 'pelican'] as const;
/** What OCR read, letters only (it may split a word or read the cursor after it). */
const letters = (t: unknown) => String(t).toLowerCase().replace(/[^a-z]/g, '');
const rot13 = (w: string) => w.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97));
const tag = () => randomBytes(3).toString('hex').toUpperCase();

interface Box { x: number; y: number; width: number; height: number }
interface Shot { scale: number; origin: { x: number; y: number } }
const toScreen = (b: Box, shot: Shot): Box => ({ x: shot.origin.x + b.x / shot.scale, y: shot.origin.y + b.y / shot.scale, width: b.width / shot.scale, height: b.height / shot.scale });
const inside = (p: { x: number; y: number }, b: Box) => p.x >= Math.floor(b.x) && p.x <= b.x + b.width && p.y >= Math.floor(b.y) && p.y <= b.y + b.height;

/** Screen pixel → the tablet's axis value, as the console adapter scales it (console.test.ts). */
const toAbs = (v: number, size: number) => Math.round((v * 32767) / (size - 1));
const fromAbs = (v: number, size: number) => Math.round((v * (size - 1)) / 32767);

function serialLog(): string {
  const machine = readdirSync(stateDir).find((d) => d.includes(lease));
  return machine ? readFileSync(join(stateDir, machine, 'serial.log'), 'latin1') : '';
}

async function waitSerial(text: string, from = 0, ms = 30_000): Promise<string> {
  const until = Date.now() + ms;
  for (;;) {
    const log = serialLog().slice(from);
    if (log.includes(text)) return log;
    if (Date.now() > until) throw new Error(`serial log never showed ${text}; tail: ${log.slice(-300)}`);
    await sleep(150);
  }
}

/** The evdev events od dumped to the serial log after `from`: 24-byte input_events, hex. */
function events(from: number): { type: number; code: number; value: number }[] {
  return serialLog().slice(from).split(/\r?\n/).map((l) => l.trim().split(/\s+/).map((h) => parseInt(h, 16))).filter((b) => b.length === 24 && b.every((n) => n >= 0 && n <= 255))
    .map((b) => ({ type: b[16]! | (b[17]! << 8), code: b[18]! | (b[19]! << 8), value: b[20]! | (b[21]! << 8) | (b[22]! << 16) | (b[23]! << 24) }));
}

const released = (ev: { type: number; code: number; value: number }[]) => ev.some((e) => e.type === 1 && e.code === 0x110 && e.value === 0);

async function ok(tool: string, args: Record<string, unknown>): Promise<any> {
  const r = await s.call(tool, { lease_id: lease, ...args });
  assert.equal(r.isError, undefined, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(r.structuredContent)}`);
  return r;
}

/**
 * The tablet position the guest received for a click: the pointer is first parked at (0, 0), so
 * both axes change (evdev drops a value equal to the last), then `click` runs and the last
 * ABS_X/ABS_Y before its button release are read.
 */
async function tabletAfter(click: () => Promise<unknown>): Promise<{ abs: { x: number; y: number }; px: { x: number; y: number } }> {
  const park = serialLog().length;
  await ok('vm_click', { x: 0, y: 0, coordinate_space: 'screen' });
  for (const until = Date.now() + 20_000; !released(events(park)) && Date.now() < until;) await sleep(100);
  assert.ok(released(events(park)), 'the parking click reached the guest tablet');
  await sleep(200);
  const from = serialLog().length;
  await click();
  let ev = events(from);
  for (const until = Date.now() + 20_000; !released(ev) && Date.now() < until; ev = events(from)) await sleep(100);
  assert.ok(released(ev), 'the click reached the guest tablet');
  const upTo = ev.findIndex((e) => e.type === 1 && e.code === 0x110 && e.value === 0);
  const last = (code: number) => ev.slice(0, upTo).filter((e) => e.type === 3 && e.code === code).at(-1)?.value ?? 0;
  const abs = { x: last(0), y: last(1) };
  return { abs, px: { x: fromAbs(abs.x, screen.width), y: fromAbs(abs.y, screen.height) } };
}

async function fullShot(): Promise<any> {
  return (await ok('vm_screenshot', { format: 'png' })).structuredContent;
}

/** Type a command and Return; wait for the marker it echoes to the serial port. */
async function shell(command: string, marker?: string): Promise<void> {
  const from = serialLog().length;
  await ok('vm_type', { text: command });
  await ok('vm_key', { keys: 'Return' });
  if (marker) await waitSerial(marker, from);
}

before(async () => {
  box.write({ providers: { qemu: { state_dir: stateDir } } });
  s = await connect(box);
});
after(() => box.end(s, [lease]));

describe('agent tools on the QEMU VGA console (tiny-console)', { timeout: 900_000 }, () => {
  leaseThenOcrOff(box, () => s, 'tiny-console', 240, 'tiny', (id) => { lease = id; });

  it('setup: the guest dumps its tablet events to the serial port; a clean screen', async () => {
    const shot = await fullShot();
    screen = shot.screen;
    assert.equal(shot.scale, 1, `the ${screen.width}×${screen.height} console fits the default image box`);
    const t = tag();
    await shell(`echo TABLET-${t} > /dev/ttyS0; od -An -tx1 -w24 -v /dev/tablet > /dev/ttyS0 &`, `TABLET-${t}`);
    await sleep(500);
    await shell('clear');
    assert.equal((await ok('vm_wait', { for: 'settle', timeout_seconds: 20 })).structuredContent.satisfied, true);
  });

  const word = WORDS[0];
  it('vm_wait {for: "text"} sees text typed into the shell, then vm_find_text finds it on the prompt line', async () => {
    // A space after the word keeps the cursor off its last letter.
    await ok('vm_type', { text: `echo ${word} ` });
    const waited = (await ok('vm_wait', { for: 'text', text: word, timeout_seconds: 30 })).structuredContent;
    assert.equal(waited.satisfied, true, JSON.stringify(waited));
    assert.ok(waited.match, 'the match comes with the wait');
    const shot = await fullShot();
    const found = (await ok('vm_find_text', { text: word })).structuredContent.matches;
    assert.ok(found.length >= 1, `no match for ${word}`);
    const m = toScreen(found[0], shot);
    assert.ok(m.x >= 0 && m.y >= 0 && m.x + m.width <= screen.width && m.y + m.height <= screen.height, `on screen: ${JSON.stringify(m)}`);
    assert.ok(m.width > 20 && m.height > 5 && m.height < 40, `a word-sized box: ${JSON.stringify(m)}`);
    // The prompt "tiny# " begins the same text row (16-px VGA cells), left of the word.
    const prompts = (await ok('vm_find_text', { text: 'tiny' })).structuredContent.matches.map((p: Box) => toScreen(p, shot));
    const row = (b: Box) => Math.floor((b.y + b.height / 2) / 16);
    assert.ok(prompts.some((p: Box) => row(p) === row(m) && p.x < m.x && p.x < 40), `a prompt on the word's row ${row(m)}: ${JSON.stringify(prompts)} vs ${JSON.stringify(m)}`);
  });

  it('vm_click {text} and {mark}: the tablet position the guest received lies inside the match', async () => {
    const shot = await fullShot();
    const found = (await ok('vm_find_text', { text: word })).structuredContent.matches;
    assert.ok(found.length >= 1);
    const m = toScreen(found[0], shot);
    let clicked: any;
    const byText = await tabletAfter(async () => { clicked = (await ok('vm_click', { text: word })).structuredContent; });
    assert.match(letters(clicked.text), new RegExp(word.slice(0, 4)), 'the output says what was clicked');
    assert.deepEqual(byText.abs, { x: toAbs(clicked.screen_x, screen.width), y: toAbs(clicked.screen_y, screen.height) }, 'the guest got the point vm_click reports');
    assert.ok(inside(byText.px, m), `tablet at ${JSON.stringify(byText.px)} inside the match ${JSON.stringify(m)}`);

    const marked = (await ok('vm_screenshot', { marks: true })).structuredContent;
    assert.ok(Array.isArray(marked.marks) && marked.marks.length >= 1, JSON.stringify(marked.marks));
    const mark = marked.marks.find((k: any) => letters(k.text).includes(word.slice(0, 5)));
    assert.ok(mark, `a mark with ${word}: ${JSON.stringify(marked.marks.map((k: any) => k.text))}`);
    const byMark = await tabletAfter(() => ok('vm_click', { mark: mark.id }));
    const mb = toScreen(mark, marked);
    assert.ok(inside(byMark.px, mb), `tablet at ${JSON.stringify(byMark.px)} inside mark ${mark.id} ${JSON.stringify(mb)}`);
    await ok('vm_key', { keys: 'ctrl+c' });
  });

  it('zoom 4×: a click at a point of the zoomed image reaches exactly the tablet value of the screen pixel it shows', async () => {
    const region = { x: 250, y: 150, width: 200, height: 100 };
    await zoom4(ok, region);
    for (const p of [{ x: 517, y: 243 }, { x: 3, y: 398 }, { x: 799, y: 1 }]) {
      const want = zoomedPixel(region, p);
      const got = await tabletAfter(async () => {
        const c = (await ok('vm_click', p)).structuredContent;
        assert.deepEqual({ x: c.screen_x, y: c.screen_y }, want, `vm_click ${JSON.stringify(p)} output`);
      });
      assert.deepEqual(got.abs, { x: toAbs(want.x, screen.width), y: toAbs(want.y, screen.height) }, `zoomed ${JSON.stringify(p)} → screen ${JSON.stringify(want)} → the guest's tablet`);
    }
  });

  it('vm_batch: type a command, Return, wait to settle; the effect is in the serial log and the final screenshot shows the output', async () => {
    const out = WORDS[1];
    const from = serialLog().length;
    // The command line holds the word rot13'd: only the command's output shows it plain.
    const r = await typeReturnSettle(ok, `clear; echo ${rot13(out)} | tr a-z n-za-m | tee /dev/ttyS0`, 30);
    await waitSerial(`${out}\r\n`, from, 10_000);
    await assertFinalShotShows(r, out);
    const found = (await ok('vm_find_text', { text: out })).structuredContent.matches;
    assert.ok(found.length >= 1, 'vm_find_text agrees');
  });

  it('vm_batch with an invalid last step refuses the whole batch: nothing is typed (checked in the serial log)', async () => {
    const t = tag();
    await assertBatchRefused(s, lease, `echo SHOULD-NOT-RUN-${t} > /dev/ttyS0`);
    await sleep(2000);
    assert.ok(!serialLog().includes(`SHOULD-NOT-RUN-${t}`), 'the refused batch ran nothing');
    // Nothing was typed either: a command typed now runs alone on a clean line.
    await shell(`echo CLEAN-${t} > /dev/ttyS0`, `CLEAN-${t}\r\n`);
    assert.ok(!serialLog().includes(`SHOULD-NOT-RUN-${t}`));
  });

  it('release', async () => {
    const r = await s.call('vm_lease_release', { lease_id: lease });
    assert.equal(r.structuredContent.status, 'released');
    lease = '';
  });
});
