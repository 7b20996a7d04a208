/**
 * x11: type, key, paste, click, scroll — effects checked in the X session itself: text typed into
 * an xterm arrives byte-exact in a file its shell writes; xev reports the clicks and wheel events.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { until } from '@vmhub/test-kit';
import { rejectsWith } from '@vmhub/test-kit/errors';
import { fileText, startDesktop, type Desktop } from './desktop.ts';
import { routerOn } from './router.ts';

let d: Desktop;
before(async () => { d = await startDesktop(); });
after(async () => { await d?.stop(); });

// Written to a temporary name and renamed, so fileText never reads a created-but-unwritten file.
const readLineTo = (file: string) => `IFS= read -r line; printf %s "$line" > '${file}.tmp' && mv '${file}.tmp' '${file}'; sleep 2`;
const rand = () => randomBytes(4).toString('hex');
const xclipOut = (selection: string) => execFileSync('xclip', ['-selection', selection, '-o'], { env: { ...process.env, ...d.x.env }, timeout: 3000 }).toString('utf8');
const xclipIn = (selection: string, text: string) => execFileSync('sh', ['-c', 'xclip -selection "$1" -i >/dev/null 2>&1', 'sh', selection], { input: text, env: { ...process.env, ...d.x.env }, timeout: 3000 });

describe('x11: type', () => {
  it('types Unicode and shell metacharacters byte-exact, and executes nothing', async () => {
    const file = join(d.x.home, `typed-${rand()}.txt`);
    const pwned = `/tmp/pwned-${rand()}`;
    await d.term(`type-${rand()}`, readLineTo(file));
    const text = `héllo ✓ Привет 粘贴 '";|&$()\\\` %s $(touch ${pwned}) \`touch ${pwned}\``;
    await d.session.type!(d.ctx, { text: `${text}\n` });
    assert.equal(await fileText(file), text);
    assert.equal(existsSync(pwned), false, 'the typed command substitution must not run');
    assert.ok(d.channel.calls.some((argv) => argv.includes('map')), 'non-ASCII characters were pre-bound through the keymap helper, not left to xdotool\'s racy remapping');
  });

  it('keeps order over several chunks at speed', async () => {
    const file = join(d.x.home, `long-${rand()}.txt`);
    await d.term(`long-${rand()}`, readLineTo(file));
    const text = Array.from({ length: 40 }, (_, i) => `${i}:ü✓`).join(' ');
    // Tiny runs at a fast ASCII delay: the text crosses many xdotool calls.
    const small = await d.open({ display: d.x.display, type_chunk_chars: 7, type_delay_ms: 4 });
    await small.type!(d.ctx, { text: `${text}\n` });
    assert.equal(await fileText(file), text);
  });
});

describe('x11: type (concurrent calls)', () => {
  it('two concurrent vm_type calls on one lease arrive whole, in call order', async () => {
    const file = join(d.x.home, `conc-${rand()}.txt`);
    await d.term(`conc-${rand()}`, readLineTo(file));
    const a = 'first é✓ü part;', b = ' second Привет 粘贴 part';
    await Promise.all([d.session.type!(d.ctx, { text: a }), d.session.type!(d.ctx, { text: `${b}\n` })]);
    assert.equal(await fileText(file), a + b);
  });
});

describe('x11: type (many distinct characters)', () => {
  it('more distinct non-keymap characters than spare keycodes: all arrive, in order', async () => {
    const file = join(d.x.home, `cjk-${rand()}.txt`);
    await d.term(`cjk-${rand()}`, readLineTo(file));
    const text = Array.from({ length: 45 }, (_, i) => String.fromCodePoint(0x4e00 + i * 7)).join('') + ' done ✓';
    await d.session.type!(d.ctx, { text: `${text}\n` });
    assert.equal(await fileText(file), text);
  });
});

describe('x11: key', () => {
  it('a chord has its effect: BackSpace edits, ctrl+u kills the line', async () => {
    const file = join(d.x.home, `keys-${rand()}.txt`);
    await d.term(`keys-${rand()}`, readLineTo(file));
    await d.session.type!(d.ctx, { text: 'discard me' });
    await d.session.key!(d.ctx, { keys: 'ctrl+u' });
    await d.session.type!(d.ctx, { text: 'abcd' });
    await d.session.key!(d.ctx, { keys: 'BackSpace BackSpace' });
    await d.session.type!(d.ctx, { text: 'Z' });
    await d.session.key!(d.ctx, { keys: 'Return' });
    assert.equal(await fileText(file), 'abZ');
  });

  it('bad keysyms are INVALID_REQUEST naming the key, before anything runs', async () => {
    const before = d.channel.calls.length;
    await rejectsWith(d.session.key!(d.ctx, { keys: 'ctrl+shift+tee' }), 'INVALID_REQUEST', /unknown key "tee"/);
    await rejectsWith(d.session.key!(d.ctx, { keys: 'Return Retrun' }), 'INVALID_REQUEST', /unknown key "Retrun"/);
    assert.equal(d.channel.calls.length, before, 'no guest command for an invalid chord');
  });
});

describe('x11: paste', () => {
  it('pastes into XTerm (PRIMARY + shift+Insert) and restores the previous selection', async () => {
    const file = join(d.x.home, `paste-${rand()}.txt`);
    const pwned = `/tmp/pwned-${rand()}`;
    await d.term(`paste-${rand()}`, readLineTo(file));
    xclipIn('primary', 'previous primary ✓');
    const text = `pasted ✓ Привет 粘贴 '"$(touch ${pwned})`;
    await d.session.paste!(d.ctx, { text });
    await d.session.key!(d.ctx, { keys: 'Return' });
    assert.equal(await fileText(file), text);
    assert.equal(existsSync(pwned), false);
    assert.equal(xclipOut('primary'), 'previous primary ✓', 'restored by the time vm_paste returns');
  });

  it('a window that never reads the clipboard → TIMEOUT, clipboard restored', async () => {
    const title = `xev-paste-${rand()}`;
    d.x.spawnX(['xev', '-name', title, '-event', 'keyboard']);
    const w = await d.window(title);
    await d.session.focus!(d.ctx, { window: w.id });
    xclipIn('clipboard', 'old clipboard');
    const quick = await d.open({ display: d.x.display, paste_timeout_ms: 300 });
    await rejectsWith(quick.paste!(d.ctx, { text: 'never read' }), 'TIMEOUT', /no application fetched the clipboard/);
    assert.equal(xclipOut('clipboard'), 'old clipboard');
    await d.session.close!(d.ctx, { window: w.id });
  });
});

describe('x11: click and scroll', () => {
  let log: string;
  let win: { x: number; y: number; width: number; height: number; id: string };
  before(async () => {
    log = join(d.x.home, `xev-${rand()}.log`);
    const title = `xev-click-${rand()}`;
    d.x.spawnX(['sh', '-c', `exec xev -name '${title}' -geometry 300x200+500+300 -event button > '${log}'`]);
    win = await d.window(title);
    await d.session.focus!(d.ctx, { window: win.id });
  });
  const presses = () => [...readFileSync(log, 'utf8').matchAll(/ButtonPress event[^\n]*\n[^\n]*root:\((-?\d+),(-?\d+)\)[^\n]*\n\s*state (0x[0-9a-f]+), button (\d+)/g)]
    .map((m) => ({ x: Number(m[1]), y: Number(m[2]), state: Number(m[3]), button: Number(m[4]) }));

  it('clicks land where asked, with the count, button and modifiers', async () => {
    const n0 = presses().length;
    await d.session.click!(d.ctx, { x: win.x + 50, y: win.y + 40, button: 'left', count: 2, modifiers: ['ctrl'] });
    await d.session.click!(d.ctx, { x: win.x + 120, y: win.y + 90, button: 'right', count: 1, modifiers: [] });
    const got = await until(() => { const p = presses().slice(n0); return p.length >= 3 ? p : undefined; }, '3 presses', 3000);
    // xev prints root coordinates: they must be exactly the screen points asked for.
    assert.deepEqual(got.slice(0, 3).map((p) => [p.x, p.y, p.button, p.state & 0x4 ? 'ctrl' : '-']), [
      [win.x + 50, win.y + 40, 1, 'ctrl'], [win.x + 50, win.y + 40, 1, 'ctrl'], [win.x + 120, win.y + 90, 3, '-'],
    ]);
  });

  it('scroll sends amount wheel clicks in the direction', async () => {
    const n0 = presses().length;
    await d.session.scroll!(d.ctx, { x: win.x + 10, y: win.y + 10, direction: 'down', amount: 3 });
    await d.session.scroll!(d.ctx, { x: win.x + 10, y: win.y + 10, direction: 'up', amount: 2 });
    const got = await until(() => { const p = presses().slice(n0); return p.length >= 5 ? p : undefined; }, '5 wheel presses', 3000);
    assert.deepEqual(got.map((p) => p.button), [5, 5, 5, 4, 4]);
  });

  it('off-screen coordinates are INVALID_REQUEST, not clamped', async () => {
    // Core checks them now (the session trusts its caller): through the real router, in screen
    // space before any screenshot, against the size the session reports (session.screenSize()).
    const call = routerOn(d.adapter, d.session, d.ctx);
    const before = d.channel.calls.length;
    await rejectsWith(call('vm_click', { x: 1280, y: 10, coordinate_space: 'screen' }), 'INVALID_REQUEST', /off the 1280x800 screen/);
    await rejectsWith(call('vm_scroll', { x: 5, y: 9000, direction: 'up', amount: 1, coordinate_space: 'screen' }), 'INVALID_REQUEST', /off the 1280x800 screen/);
    await rejectsWith(call('vm_drag', { from: { x: 1, y: 1 }, to: { x: 1300, y: 5 }, coordinate_space: 'screen' }), 'INVALID_REQUEST', /to \(1300, 5\) is off the 1280x800 screen/);
    await rejectsWith(call('vm_drag', { from: { x: 1, y: 1 }, to: { x: -3, y: 5 }, coordinate_space: 'screen' }), 'INVALID_REQUEST', /to \(-3, 5\) is off the 1280x800 screen/);
    const inputCommands = d.channel.calls.slice(before).filter((argv) => argv[0] === 'xdotool');
    assert.deepEqual(inputCommands, [], 'nothing clamped and sent: no input command reached the guest');
  });
});
