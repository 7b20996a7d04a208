import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { batchOps, parseKeymap, planTyping, typeRuns, type Bindings } from './x11-type.ts';

const keymap = (free: number[], bound: Record<number, string> = {}) => parseKeymap([
  'keycode  38 = a A a A',
  ...free.map((c) => `keycode ${c} =`),
  ...Object.entries(bound).map(([c, l]) => `keycode ${c} = ${l}`),
].join('\n'));

describe('x11: type (planning)', () => {
  it('ASCII needs no binding: one type op', () => {
    const b: Bindings = { byChar: new Map() };
    assert.deepEqual(planTyping('hello\n', keymap([200]), b, 12), ['type', '12', 'hello\n']);
  });

  it('binds each distinct non-keymap character once, before typing', () => {
    const b: Bindings = { byChar: new Map() };
    assert.deepEqual(planTyping('é✓é', keymap([200, 201]), b, 12), ['map', '200:e9 201:1002713', 'type', '12', 'é✓é']);
  });

  it('splits into segments when keycodes run out, settling before re-binding', () => {
    const b: Bindings = { byChar: new Map() };
    const ops = planTyping('abcé✓ü', keymap([200, 201]), b, 5);
    assert.deepEqual(ops, [
      'map', '200:e9 201:1002713', 'type', '5', 'abcé✓',
      'sleep', '0.3', 'map', '200:fc', 'type', '5', 'ü',
    ]);
  });

  it('reuses a live binding of an earlier call (same xmodmap line), re-binds one that changed', () => {
    const b: Bindings = { byChar: new Map([['é', { code: 200, line: 'eacute eacute eacute eacute' }], ['✓', { code: 201, line: 'U2713 U2713' }]]) };
    const ops = planTyping('é✓', keymap([201], { 200: 'eacute eacute eacute eacute' }), b, 5);
    assert.deepEqual(ops, ['map', '201:1002713', 'type', '5', 'é✓']);
  });

  it('never takes a keycode someone else bound meanwhile', () => {
    const b: Bindings = { byChar: new Map([['é', { code: 200, line: 'eacute eacute' }], ['✓', { code: 201, line: 'U2713 U2713' }]]) };
    const ops = planTyping('é✓', keymap([], { 200: 'eacute eacute', 201: 'Hyper_L' }), b, 5);
    assert.deepEqual(ops, ['type', '5', 'é', 'sleep', '0.3', 'map', '200:1002713', 'type', '5', '✓']);
  });

  it('no keycode to spare at all → empty plan (caller falls back to xdotool remapping)', () => {
    assert.deepEqual(planTyping('é', keymap([]), { byChar: new Map() }, 5), []);
  });

  it('fallback runs split keymap and remapped characters', () => {
    assert.deepEqual(typeRuns('ab✓✓c', 10), [{ text: 'ab', slow: false }, { text: '✓✓', slow: true }, { text: 'c', slow: false }]);
    assert.deepEqual(typeRuns('abcde', 2).map((r) => r.text), ['ab', 'cd', 'e']);
  });

  it('long text becomes one guest command per chunk, order and bindings kept', () => {
    assert.deepEqual(batchOps(['type', '12', 'hello'], 256), [{ ops: ['type', '12', 'hello'], typingMs: 110 }]);
    const ops = ['map', '200:e9', 'type', '5', 'abcdé', 'sleep', '0.3', 'map', '200:fc', 'type', '5', 'üxy'];
    assert.deepEqual(batchOps(ops, 3).map((b) => b.ops), [
      ['map', '200:e9', 'type', '5', 'abc'],
      ['type', '5', 'dé', 'sleep', '0.3', 'map', '200:fc', 'type', '5', 'ü'],
      ['type', '5', 'xy'],
    ]);
    const pieces = batchOps(['type', '12', 'x'.repeat(2000)], 256);
    assert.equal(pieces.length, 8);
    assert.equal(pieces.map((b) => b.ops[2]).join(''), 'x'.repeat(2000));
  });
});
