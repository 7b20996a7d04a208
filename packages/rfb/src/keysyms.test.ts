import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keysymFor, keysymForChar, parseCombo } from './keysyms.ts';

test('rfb: characters map to keysyms (Latin-1 direct, Unicode 0x01000000+cp, newline/tab)', () => {
  assert.equal(keysymForChar('a'), 0x61);
  assert.equal(keysymForChar('Z'), 0x5a);
  assert.equal(keysymForChar('é'), 0xe9);
  assert.equal(keysymForChar('€'), 0x010020ac);
  assert.equal(keysymForChar('😀'), 0x0101f600);
  assert.equal(keysymForChar('\n'), 0xff0d);
  assert.equal(keysymForChar('\t'), 0xff09);
  assert.throws(() => keysymForChar('\x01'), { code: 'INVALID_KEY' });
});

test('rfb: key names, aliases and combos', () => {
  assert.equal(keysymFor('Return'), 0xff0d);
  assert.equal(keysymFor('enter'), 0xff0d);
  assert.equal(keysymFor('Control_L'), 0xffe3);
  assert.equal(keysymFor('ctrl'), 0xffe3);
  assert.equal(keysymFor('F12'), 0xffc9);
  assert.equal(keysymFor('page-up'), 0xff55);
  assert.equal(keysymFor('cmd'), 0xffeb);
  assert.equal(keysymFor('0xff51'), 0xff51);
  assert.throws(() => keysymFor('hyperdrive'), { code: 'INVALID_KEY' });
  assert.deepEqual(parseCombo('ctrl+alt+t'), [0xffe3, 0xffe9, 0x74]);
  assert.deepEqual(parseCombo('ctrl+T'), [0xffe3, 0x74]);
  assert.deepEqual(parseCombo('ctrl++'), [0xffe3, 0x2b]);
  assert.deepEqual(parseCombo('shift+plus'), [0xffe1, 0x2b]);
  assert.throws(() => parseCombo('ctrl+'), { code: 'INVALID_KEY' });
});
