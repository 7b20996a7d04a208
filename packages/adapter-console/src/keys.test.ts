import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { charStroke, parseKeys, textStrokes } from './keys.ts';

test('console: keymap covers printable ASCII on a US layout', () => {
  for (let c = 0x20; c < 0x7f; c++) assert.ok(charStroke(String.fromCharCode(c)), `0x${c.toString(16)}`);
  assert.deepEqual(charStroke('A'), { modifiers: ['shift'], key: 'a' });
  assert.deepEqual(charStroke('7'), { modifiers: [], key: '7' });
  const shifted = '!@#$%^&*()_+{}|:"<>?~';
  for (const ch of shifted) assert.deepEqual(charStroke(ch)!.modifiers, ['shift'], ch);
  assert.deepEqual(textStrokes('a\r\nb\tc').map((s) => s.key), ['a', 'ret', 'b', 'tab', 'c']);
});

test('console: text outside the keymap is refused whole, naming the characters and the alternatives', () => {
  for (const text of ['café', '粘贴', 'ok 🙂', 'bell\x07']) {
    assert.throws(() => textStrokes(text), (err: unknown) => {
      assert.ok(VmhubError.is(err));
      assert.equal(err.code, 'INVALID_REQUEST');
      assert.match(err.message, /vm_paste/);
      assert.match(err.message, /vm_exec/);
      assert.match(err.message, /Nothing was typed/);
      return true;
    }, text);
  }
  assert.throws(() => textStrokes('é and 粘'), /"é" \(U\+00E9\), "粘" \(U\+7C98\)/);
});

test('console: key specs parse chords, names and several strokes', () => {
  assert.deepEqual(parseKeys('ctrl+alt+Delete'), [{ modifiers: ['ctrl', 'alt'], key: 'delete' }]);
  assert.deepEqual(parseKeys('ctrl+c'), [{ modifiers: ['ctrl'], key: 'c' }]);
  assert.deepEqual(parseKeys('ctrl+C'), [{ modifiers: ['ctrl', 'shift'], key: 'c' }]);
  assert.deepEqual(parseKeys('ctrl+shift+t'), [{ modifiers: ['ctrl', 'shift'], key: 't' }]);
  assert.deepEqual(parseKeys('Return'), [{ modifiers: [], key: 'ret' }]);
  assert.deepEqual(parseKeys('super+F12 Page_Up pagedown Home End Insert Escape BackSpace Tab space Up Left'), [
    { modifiers: ['meta_l'], key: 'f12' }, { modifiers: [], key: 'pgup' }, { modifiers: [], key: 'pgdn' },
    { modifiers: [], key: 'home' }, { modifiers: [], key: 'end' }, { modifiers: [], key: 'insert' },
    { modifiers: [], key: 'esc' }, { modifiers: [], key: 'backspace' }, { modifiers: [], key: 'tab' },
    { modifiers: [], key: 'spc' }, { modifiers: [], key: 'up' }, { modifiers: [], key: 'left' },
  ]);
  for (let i = 1; i <= 12; i++) assert.deepEqual(parseKeys(`F${i}`), [{ modifiers: [], key: `f${i}` }]);
  assert.deepEqual(parseKeys('ctrl++'), [{ modifiers: ['ctrl', 'shift'], key: 'equal' }]);
  assert.deepEqual(parseKeys('shift'), [{ modifiers: [], key: 'shift' }]);
  for (const bad of ['', 'ctrl+é', 'hyper+x', 'ctrl+', 'Fn13', 'ctrl+alt+Delet']) {
    assert.throws(() => parseKeys(bad), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST', bad);
  }
});
