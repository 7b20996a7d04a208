import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { charKeysym, COMMAND_KEYSYMS, parseChords, shiftOf, untypeable, withShift } from './keys.ts';
import { keysymsOf } from './macos-key.ts';

const SUPER = COMMAND_KEYSYMS.Super_L;

describe('macos: key names and keysyms', () => {
  it('maps the Mac modifiers: cmd/command/super/meta → command_keysym, option/alt → Alt_L', () => {
    const [chord] = parseChords('cmd+option+ctrl+shift+q', SUPER);
    assert.deepEqual(chord!.map((k) => k.modifier ?? k.char), ['cmd', 'option', 'ctrl', 'shift', 'q']);
    assert.deepEqual(chord!.map((k) => k.keysym), [0xffeb, 0xffe9, 0xffe3, 0xffe1, 0x71]);
    assert.equal(parseChords('command+c', COMMAND_KEYSYMS.Meta_L)[0]![0]!.keysym, 0xffe7);
    assert.equal(parseChords('super', SUPER)[0]![0]!.modifier, 'cmd');
  });

  it('named keys carry keysyms and macOS key codes; chords split on spaces; "ctrl++" is the plus key', () => {
    const chords = parseChords('Return esc backspace delete F5 Page_Up Left U+2713 ctrl++', SUPER);
    assert.deepEqual(chords.map((c) => c.at(-1)!.keysym), [0xff0d, 0xff1b, 0xff08, 0xffff, 0xffc2, 0xff55, 0xff51, 0x01002713, 0x2b]);
    assert.deepEqual(chords.slice(0, 7).map((c) => c[0]!.macCode), [36, 53, 51, 117, 96, 116, 123]);
  });

  it('an unknown key is INVALID_REQUEST naming it, before anything is sent', () => {
    assert.throws(() => parseChords('cmd+NoSuchKey', SUPER), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && e.message.includes('"NoSuchKey"'));
    assert.throws(() => parseChords('   ', SUPER), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
  });

  it('characters: Latin-1 direct, other Unicode 0x01000000 + code point, newline/tab as keys; US Shift pairs', () => {
    assert.deepEqual(['a', 'é', '✓', '日', '\n', '\t'].map(charKeysym), [0x61, 0xe9, 0x01002713, 0x010065e5, 0xff0d, 0xff09]);
    assert.deepEqual([shiftOf('A'), shiftOf('!'), shiftOf('a'), shiftOf('é')], [{ shift: true, base: 'a' }, { shift: true, base: '1' }, { shift: false, base: 'a' }, { shift: false, base: 'é' }]);
    assert.deepEqual(['a', '1', '/', 'é'].map(withShift), ['A', '!', '?', 'é']);
    assert.deepEqual(untypeable('ok\n\ttab\r\n'), []);
    assert.deepEqual(untypeable('bell\u0007 esc\u001b'), ['\u0007', '\u001b']);
  });

  it('a chord with Shift sends the shifted keysym (x11vnc types the keysym\'s own character), or the base key', () => {
    const chord = parseChords('cmd+shift+t', SUPER)[0]!;
    assert.deepEqual(keysymsOf(chord, true), [0xffeb, 0xffe1, 0x54]);
    assert.deepEqual(keysymsOf(chord, false), [0xffeb, 0xffe1, 0x74]);
  });
});
