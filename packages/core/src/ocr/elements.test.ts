import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { textElements } from './elements.ts';
import type { OcrWord } from './types.ts';

function word(text: string, x: number, y: number, line: number, confidence = 0.9): OcrWord {
  return { text, confidence, x, y, width: text.length * 8, height: 12, line };
}

describe('core: ocr text elements', () => {
  it('joins words of one line whose gaps are under 1.5 character widths', () => {
    // 8 px characters: a 6 px gap joins, a 40 px gap splits
    const words = [word('Save', 10, 10, 0), word('As', 48, 10, 0), word('Cancel', 104, 10, 0)];
    assert.deepEqual(textElements(words), [
      { text: 'Save As', confidence: 0.9, x: 10, y: 10, width: 54, height: 12 },
      { text: 'Cancel', confidence: 0.9, x: 104, y: 10, width: 48, height: 12 },
    ]);
  });
  it('never joins words of different lines', () => {
    const words = [word('One', 10, 10, 0), word('Two', 10, 24, 1)];
    assert.deepEqual(textElements(words).map((e) => e.text), ['One', 'Two']);
  });
  it('orders top to bottom, then left to right within a row', () => {
    const words = [word('Right', 300, 11, 2), word('Below', 10, 60, 0), word('Left', 10, 10, 1)];
    assert.deepEqual(textElements(words).map((e) => e.text), ['Left', 'Right', 'Below']);
  });
  it('drops junk: low confidence, lone punctuation, unsure lone characters', () => {
    const words = [word('Menu', 10, 10, 0, 0.2), word('|', 100, 10, 1), word('X', 200, 10, 2, 0.95), word('i', 300, 10, 3, 0.4), word('OK', 400, 10, 4)];
    assert.deepEqual(textElements(words).map((e) => e.text), ['X', 'OK']);
  });
  it('averages confidence over the joined words', () => {
    const [e] = textElements([word('a1', 10, 10, 0, 0.8), word('b2', 30, 10, 0, 0.6)]);
    assert.deepEqual([e!.text, e!.confidence], ['a1 b2', 0.7]);
  });
});
