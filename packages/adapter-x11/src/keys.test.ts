import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { VmhubError } from '@vmhub/core';
import { charKeysym, keysymOf, parseKeys, resolveKey } from './keys.ts';

describe('x11: key (keysym validation)', () => {
  it('maps chords, aliases and names to X keysyms', () => {
    assert.deepEqual(parseKeys('ctrl+shift+t'), ['Control_L+Shift_L+t']);
    assert.deepEqual(parseKeys('super'), ['Super_L']);
    assert.deepEqual(parseKeys('F5 Return enter esc'), ['F5', 'Return', 'Return', 'Escape']);
    assert.deepEqual(parseKeys('  alt+F4   ctrl+alt+Delete '), ['Alt_L+F4', 'Control_L+Alt_L+Delete']);
    assert.deepEqual(parseKeys('ctrl++ ctrl+- ctrl+/'), ['Control_L+plus', 'Control_L+minus', 'Control_L+slash']);
    assert.deepEqual(parseKeys('f12 pageup page_down XF86AudioMute KP_Enter'), ['F12', 'Prior', 'Next', 'XF86AudioMute', 'KP_Enter']);
    assert.deepEqual(parseKeys('A a 1 ü U+2713'), ['A', 'a', '1', 'U00FC', 'U2713']);
  });

  it('case-folds only unambiguous multi-letter names', () => {
    assert.equal(resolveKey('backspace'), 'BackSpace');
    assert.equal(resolveKey('RETURN'), 'Return');
    assert.equal(resolveKey('x'), 'x');
    assert.equal(resolveKey('X'), 'X');
  });

  it('rejects unknown keys naming them', () => {
    for (const [keys, bad] of [['ctrl+shift+tee', 'tee'], ['Retrun', 'Retrun'], ['ctrl+', 'ctrl+'], ['ctrl+NoSuchKeyVmhub', 'NoSuchKeyVmhub'], ['F99', 'F99']] as const) {
      assert.throws(() => parseKeys(keys), (err: unknown) => VmhubError.is(err) && err.code === 'INVALID_REQUEST' && err.message.includes(`"${bad}"`), keys);
    }
    assert.throws(() => parseKeys('   '), /keys is empty/);
  });

  it('gives each resolved name its X keysym value (what the XTEST path presses)', () => {
    const values = parseKeys('ctrl+shift+t Return F5 A a ü U+2713 XF86AudioMute XF86DisplayOff').flatMap((c) => c.split('+')).map(keysymOf);
    // keysymdef.h / XF86keysym.h; Latin-1 is its own code point, other Unicode 0x01000000 + it.
    assert.deepEqual(values, [0xffe3, 0xffe1, 0x74, 0xff0d, 0xffc2, 0x41, 0x61, 0xfc, 0x1002713, 0x1008ff12, 0x100810f5]);
    assert.throws(() => keysymOf('NoSuchKeyVmhub'), /not a keysym name/);
  });

  it('one rule for a character\'s keysym, typed or named: printable Latin-1 is itself, the rest 0x01000000 + code point', () => {
    assert.deepEqual(['a', '~', 'é', 'ÿ', '\u00a0', '\u007f', '\u0085', '✓', '粘', '\n', '\t'].map(charKeysym),
      [0x61, 0x7e, 0xe9, 0xff, 0xa0, 0x100007f, 0x1000085, 0x1002713, 0x1007c98, 0xff0d, 0xff09]);
    assert.equal(keysymOf(resolveKey('é')!), charKeysym('é'));
    assert.equal(keysymOf(resolveKey('✓')!), charKeysym('✓'));
  });
});
