/** Key names, text planning (the `input text` %s rule) and scroll geometry. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { VmhubError } from '@vmhub/core';
import { parseKeys, resolveKey } from './keys.ts';
import { inputTextArgs, planText } from './text-plan.ts';
import { scrollSwipe } from './android-scroll.ts';

/** What Android's InputShellCommand.sendText does with its argument (%s → space). */
function androidSendText(arg: string): string {
  const buff = [...arg];
  let escape = false;
  for (let i = 0; i < buff.length; i++) {
    if (escape) {
      escape = false;
      if (buff[i] === 's') {
        buff[i] = ' ';
        buff.splice(--i, 1);
      }
    }
    if (buff[i] === '%') escape = true;
  }
  return buff.join('');
}

describe('keys', () => {
  it('maps names, aliases and chords to KEYCODE_*', () => {
    assert.deepEqual(parseKeys('home back Return app_switch Recents'), [['KEYCODE_HOME'], ['KEYCODE_BACK'], ['KEYCODE_ENTER'], ['KEYCODE_APP_SWITCH'], ['KEYCODE_APP_SWITCH']]);
    assert.deepEqual(parseKeys('ctrl+a BackSpace Delete'), [['KEYCODE_CTRL_LEFT', 'KEYCODE_A'], ['KEYCODE_DEL'], ['KEYCODE_FORWARD_DEL']]);
    assert.deepEqual(parseKeys('Page_Up volume-up F5 KEYCODE_POWER , ctrl++'), [['KEYCODE_PAGE_UP'], ['KEYCODE_VOLUME_UP'], ['KEYCODE_F5'], ['KEYCODE_POWER'], ['KEYCODE_COMMA'], ['KEYCODE_CTRL_LEFT', 'KEYCODE_PLUS']]);
    assert.equal(resolveKey('Escape'), 'KEYCODE_ESCAPE');
    assert.equal(resolveKey('up'), 'KEYCODE_DPAD_UP');
    assert.equal(resolveKey('shift'), 'KEYCODE_SHIFT_LEFT');
  });

  it('unknown names are INVALID_REQUEST listing the valid ones', () => {
    const err = (() => { try { parseKeys('home hyperdrive'); } catch (e) { return e; } })();
    assert.ok(VmhubError.is(err));
    assert.equal(err.code, 'INVALID_REQUEST');
    assert.match(err.message, /unknown key name "hyperdrive"; valid names .*home, back, enter/);
    assert.throws(() => parseKeys('ctrl+'), /malformed chord/);
    assert.throws(() => parseKeys('KEYCODE_NOPE'), /unknown key name/);
  });
});

describe('text plan', () => {
  it('printable ASCII goes through input text and arrives exactly, metacharacters and % included', () => {
    const text = `a b  c%s 100% sure 5%%s $(rm -rf /) 'q' "d" \`id\` ; & | < > * ? ! # ~ \\ {x} [y]`;
    const steps = planText(text, 500);
    assert.ok(steps.every((s) => s.kind === 'text'));
    const typed = steps.map((s) => androidSendText((s as { arg: string }).arg)).join('');
    assert.equal(typed, text);
    assert.ok(steps.every((s) => !/ /.test((s as { arg: string }).arg)), 'spaces are sent as %s');
  });

  it('newlines and tabs are keys, other characters go to the clipboard, in order', () => {
    assert.deepEqual(planText('héllo wörld\tok ✓\r\nplain text\n', 500), [
      { kind: 'clipboard', text: 'héllo wörld' },
      { kind: 'key', code: 'KEYCODE_TAB' },
      { kind: 'clipboard', text: 'ok ✓' },
      { kind: 'key', code: 'KEYCODE_ENTER' },
      { kind: 'text', arg: 'plain%stext' },
      { kind: 'key', code: 'KEYCODE_ENTER' },
    ]);
    assert.deepEqual(planText('日本語 😀', 500), [{ kind: 'clipboard', text: '日本語 😀' }]);
    assert.deepEqual(planText('bell\x07', 500), [{ kind: 'clipboard', text: 'bell\x07' }]);
  });

  it('chunks long runs without splitting the meaning', () => {
    const args = inputTextArgs('x'.repeat(1200), 500);
    assert.deepEqual(args.map((a) => a.length), [500, 500, 200]);
    assert.deepEqual(inputTextArgs('%s%s', 500), ['%', 's%', 's']);
    assert.equal(inputTextArgs('%s%s', 500).map(androidSendText).join(''), '%s%s');
  });
});

describe('scroll swipe', () => {
  const screen = { width: 1080, height: 2400 };
  it('swipes against the direction, amount × step % of the screen, inside the edges', () => {
    assert.deepEqual(scrollSwipe({ x: 540, y: 1200 }, 'down', 3, screen, 10), [540, 1200, 540, 480]);
    assert.deepEqual(scrollSwipe({ x: 540, y: 1200 }, 'up', 1, screen, 10), [540, 1200, 540, 1440]);
    assert.deepEqual(scrollSwipe({ x: 540, y: 1200 }, 'right', 2, screen, 10), [540, 1200, 324, 1200]);
    assert.deepEqual(scrollSwipe({ x: 540, y: 100 }, 'down', 10, screen, 10), [540, 100, 540, 1]);
    assert.deepEqual(scrollSwipe({ x: 1000, y: 100 }, 'left', 10, screen, 10), [1000, 100, 1079, 100]);
  });
});
