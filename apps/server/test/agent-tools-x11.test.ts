// Issue 16's agent tools (vm_wait, vm_find_text, vm_click by text and by mark, zoom, vm_batch)
// through the SDK client and the built server, on a real Xvfb desktop (Docker + the debian-x11
// golden). Every effect is read back in the guest: the pointer with `xdotool getmouselocation`,
// commands by the files they write. The terminal uses DejaVu Sans Mono: the tests are about the
// tools' wiring and coordinates, not about OCR on xterm's 6×13 bitmap font.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { after, before, describe, it } from 'node:test';
import { connect, errorCode, machineBox, type Session } from './harness.ts';
import { assertBatchRefused, assertFinalShotShows, leaseThenOcrOff, typeReturnSettle, zoom4, zoomedPixel } from './agent-tools-checks.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const box = machineBox('at-x11', 'ax');
let s: Session;
let lease = '';
let term: { id: string; x: number; y: number; width: number; height: number };

// Real words in lower case, fixed (a run is repeatable): what OCR reads most reliably.
const WORDS = ['pelican', 'marmalade'] as const;
/** What OCR read, letters only (it may split a word or read the cursor after it). */
const letters = (t: unknown) => String(t).toLowerCase().replace(/[^a-z]/g, '');
const rot13 = (w: string) => w.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97));

interface Box { x: number; y: number; width: number; height: number }
interface Shot { scale: number; origin: { x: number; y: number } }
/** An image-space box of a screenshot, in screen pixels. */
const toScreen = (b: Box, shot: Shot): Box => ({ x: shot.origin.x + b.x / shot.scale, y: shot.origin.y + b.y / shot.scale, width: b.width / shot.scale, height: b.height / shot.scale });
const inside = (p: { x: number; y: number }, b: Box) => p.x >= Math.floor(b.x) && p.x <= b.x + b.width && p.y >= Math.floor(b.y) && p.y <= b.y + b.height;

async function ok(tool: string, args: Record<string, unknown>): Promise<any> {
  const r = await s.call(tool, { lease_id: lease, ...args });
  assert.equal(r.isError, undefined, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(r.structuredContent)}`);
  return r;
}

/** The pointer as X itself reports it, read in the guest. */
async function pointer(): Promise<{ x: number; y: number }> {
  const out = (await ok('vm_exec', { command: ['xdotool', 'getmouselocation', '--shell'] })).structuredContent.stdout as string;
  const v = Object.fromEntries(out.trim().split('\n').map((l) => l.split('=')));
  return { x: Number(v.X), y: Number(v.Y) };
}

async function guestFile(path: string): Promise<string | undefined> {
  const r = await s.call('vm_get_file', { lease_id: lease, path });
  if (errorCode(r) === 'NOT_FOUND') return undefined;
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  return r.structuredContent.content;
}

async function waitFile(path: string, want: (t: string) => boolean, ms = 10_000): Promise<string | undefined> {
  const until = Date.now() + ms;
  let last: string | undefined;
  while (Date.now() < until) {
    last = await guestFile(path);
    if (last !== undefined && want(last)) return last;
    await sleep(200);
  }
  return last;
}

/**
 * Move the pointer away from any text, inside the terminal (a click on the root window would take
 * its focus). Then wait past xterm's multi-click time (250 ms): a click that follows sooner is a
 * double click, and xterm selects (highlights) the text between the two points.
 */
async function park(): Promise<void> {
  await ok('vm_click', { x: term.x + term.width - 8, y: term.y + term.height - 8, coordinate_space: 'screen' });
  await sleep(400);
}

/** A plain screenshot of the whole screen, so the image space of later boxes is known. */
async function fullShot(): Promise<any> {
  return (await ok('vm_screenshot', { format: 'png' })).structuredContent;
}

before(async () => {
  box.write();
  s = await connect(box);
});
after(() => box.end(s, [lease]));

describe('agent tools on a real x11 desktop (docker + debian-x11)', { timeout: 600_000 }, () => {
  leaseThenOcrOff(box, () => s, 'debian-x11', 120, 'anything', (id) => { lease = id; });

  it('setup: a terminal with a readable font', async () => {
    const r = await ok('vm_launch', { app: 'xterm', args: ['-T', 'vmhub-agent-tools', '-geometry', '70x16+60+60', '-fa', 'DejaVu Sans Mono', '-fs', '12'], wait_seconds: 10 });
    assert.ok(r.structuredContent.window, 'vm_launch reports the terminal');
    await ok('vm_focus', { window: r.structuredContent.window.id });
    const listed = (await ok('vm_list_windows', {})).structuredContent.windows.find((w: any) => w.id === r.structuredContent.window.id);
    assert.ok(listed?.focused, 'the terminal has the focus');
    term = listed;
    // A shell prompt is up when the screen stops changing.
    assert.equal((await ok('vm_wait', { for: 'settle', timeout_seconds: 20 })).structuredContent.satisfied, true);
  });

  const word = WORDS[0];
  it('vm_wait {for: "text"} sees typed text, then vm_find_text finds it inside the terminal', async () => {
    await fullShot();
    // A space after the word keeps xterm's block cursor off its last letter.
    await ok('vm_type', { text: `${word} ` });
    const waited = (await ok('vm_wait', { for: 'text', text: word, timeout_seconds: 30 })).structuredContent;
    assert.equal(waited.satisfied, true, JSON.stringify(waited));
    assert.ok(waited.match, 'the match comes with the wait');
    const shot = await fullShot();
    assert.equal(shot.scale, 1, 'a 1280×800 screen fits the default image box');
    const found = (await ok('vm_find_text', { text: word })).structuredContent.matches;
    assert.ok(found.length >= 1, `no match for ${word}`);
    const m = toScreen(found[0], shot);
    assert.ok(found[0].confidence > 0 && found[0].confidence <= 1);
    assert.match(letters(found[0].text), new RegExp(word.slice(0, 4)));
    // Typed at the prompt of the terminal's first line, after "user@vmhub:~$ ".
    assert.ok(m.x >= term.x && m.y >= term.y && m.x + m.width <= term.x + term.width && m.y + m.height <= term.y + term.height, `match ${JSON.stringify(m)} inside the terminal ${JSON.stringify(term)}`);
    assert.ok(m.y < term.y + 40, `match ${JSON.stringify(m)} on the terminal's first line`);
    assert.ok(m.x > term.x + 60, `match ${JSON.stringify(m)} right of the prompt`);
    assert.ok(m.width > 20 && m.width < 200 && m.height > 5 && m.height < 40, `a word-sized box: ${JSON.stringify(m)}`);
    // Outside the region nothing is found; inside it, the same word.
    const above = await ok('vm_find_text', { text: word, region: { x: 0, y: 0, width: 1280, height: Math.max(1, Math.floor(term.y) - 1) } });
    assert.deepEqual(above.structuredContent.matches, [], 'nothing above the terminal');
  });

  it('vm_click {text} and {mark}: the pointer, read in the guest, lands inside the match', async () => {
    const shot = await fullShot();
    const found = (await ok('vm_find_text', { text: word })).structuredContent.matches;
    assert.ok(found.length >= 1);
    const m = toScreen(found[0], shot);
    await park();
    const clicked = (await ok('vm_click', { text: word })).structuredContent;
    assert.match(letters(clicked.text), new RegExp(word.slice(0, 4)), 'the output says what was clicked');
    const at = await pointer();
    assert.deepEqual(at, { x: clicked.screen_x, y: clicked.screen_y }, 'the guest pointer is where vm_click says');
    assert.ok(inside(at, m), `pointer ${JSON.stringify(at)} inside the match ${JSON.stringify(m)}`);

    const nothing = await s.call('vm_click', { lease_id: lease, text: 'zzqxv-not-on-screen' });
    assert.equal(errorCode(nothing), 'NOT_FOUND', JSON.stringify(nothing.structuredContent));

    const marked = await ok('vm_screenshot', { marks: true });
    const ms = marked.structuredContent;
    assert.ok(Array.isArray(ms.marks) && ms.marks.length >= 1, `marks: ${JSON.stringify(ms.marks)}`);
    assert.deepEqual(ms.marks.map((k: any) => k.id), ms.marks.map((_: any, i: number) => i + 1), 'numbered 1..n');
    const mark = ms.marks.find((k: any) => letters(k.text).includes(word.slice(0, 5)));
    assert.ok(mark, `a mark with ${word}: ${JSON.stringify(ms.marks.map((k: any) => k.text))}`);
    // The boxes are drawn: the marked image differs from a plain one of the same screen.
    const plain = (await s.call('vm_screenshot', { lease_id: lease, format: 'png' })).content.find((c: any) => c.type === 'image') as any;
    const drawn = marked.content.find((c: any) => c.type === 'image') as any;
    const [a, b] = await Promise.all([plain, drawn].map((i) => sharp(Buffer.from(i.data, 'base64')).raw().toBuffer()));
    assert.ok(!a!.equals(b!), 'the marks screenshot has boxes drawn over it');
    // vm_click {mark} uses the marks of the latest marks screenshot, even after a plain one.
    await park();
    const byMark = (await ok('vm_click', { mark: mark.id })).structuredContent;
    const at2 = await pointer();
    assert.deepEqual(at2, { x: byMark.screen_x, y: byMark.screen_y });
    const mb = toScreen(mark, ms);
    assert.ok(inside(at2, mb), `pointer ${JSON.stringify(at2)} inside mark ${mark.id} ${JSON.stringify(mb)}`);
    const unknown = await s.call('vm_click', { lease_id: lease, mark: ms.marks.length + 100 });
    assert.equal(errorCode(unknown), 'INVALID_REQUEST');
    assert.equal(errorCode(await s.call('vm_click', { lease_id: lease, text: word, x: 1, y: 1 })), 'INVALID_REQUEST', 'two targets at once');
    await ok('vm_focus', { window: term.id });
    await ok('vm_key', { keys: 'ctrl+u' });
  });

  it('zoom 4×: a click at a point of the zoomed image reaches exactly the screen pixel it shows', async () => {
    const region = { x: 333, y: 211, width: 200, height: 100 };
    await zoom4(ok, region);
    for (const p of [{ x: 517, y: 243 }, { x: 3, y: 398 }, { x: 799, y: 0 }, { x: 402.5, y: 101.9 }]) {
      const c = (await ok('vm_click', p)).structuredContent;
      const want = zoomedPixel(region, p);
      assert.deepEqual({ x: c.screen_x, y: c.screen_y }, want, `vm_click ${JSON.stringify(p)} output`);
      assert.deepEqual(await pointer(), want, `zoomed ${JSON.stringify(p)} → the guest's pointer`);
    }
    assert.equal(errorCode(await s.call('vm_click', { lease_id: lease, x: 800, y: 10 })), 'INVALID_REQUEST', 'past the zoomed image');
  });

  it('vm_batch: type a command, Return, wait to settle; the effect is in the guest and the final screenshot shows the output', async () => {
    await ok('vm_focus', { window: term.id });
    const out = WORDS[1];
    const file = `/tmp/batch-${randomBytes(3).toString('hex')}.txt`;
    // The command line holds the word rot13'd: only the command's output shows it plain.
    const r = await typeReturnSettle(ok, `clear; echo ${rot13(out)} | tr a-z n-za-m | tee ${file}`, 20);
    const b = r.structuredContent;
    assert.equal(await waitFile(file, (t) => t.length > 0), `${out}\n`, 'the command ran in the guest');
    await assertFinalShotShows(r, out);
    // vm_find_text agrees, in the image space of that screenshot (the latest).
    const found = (await ok('vm_find_text', { text: out })).structuredContent.matches;
    assert.ok(found.length >= 1);
    const m = toScreen(found[0], b.screenshot);
    assert.ok(inside({ x: m.x + m.width / 2, y: m.y + m.height / 2 }, term), `output ${JSON.stringify(m)} centred inside the terminal ${JSON.stringify(term)}`);
  });

  it('vm_batch with an invalid last step refuses the whole batch: nothing is typed (checked in the guest)', async () => {
    await ok('vm_focus', { window: term.id });
    const file = `/tmp/snr-${randomBytes(3).toString('hex')}.txt`;
    await assertBatchRefused(s, lease, `echo SHOULD-NOT-RUN > ${file}`);
    await sleep(1500);
    assert.equal(await guestFile(file), undefined, 'the refused batch wrote nothing');
    // Nothing was typed either: a command typed now runs alone on a clean line.
    const clean = `/tmp/clean-${randomBytes(3).toString('hex')}.txt`;
    await ok('vm_type', { text: `echo CLEAN > ${clean}\n` });
    assert.equal(await waitFile(clean, (t) => t.length > 0), 'CLEAN\n', 'the shell line was empty before');
    assert.equal(await guestFile(file), undefined);

    // A step that needs OCR for a target that is not there is a failure at run time: it stops
    // the batch there, after the steps before it ran.
    const stop = await ok('vm_batch', { actions: [{ action: 'key', keys: 'ctrl+u' }, { action: 'click', text: 'zzqxv-not-on-screen' }, { action: 'type', text: 'never typed' }] });
    assert.deepEqual(stop.structuredContent.results.map((x: any) => [x.action, x.ok]), [['key', true], ['click', false]], JSON.stringify(stop.structuredContent));
    assert.equal(stop.structuredContent.results[1].error.code, 'NOT_FOUND');
  });

  it('release', async () => {
    const r = await s.call('vm_lease_release', { lease_id: lease });
    assert.equal(r.structuredContent.status, 'released');
    lease = '';
  });
});
