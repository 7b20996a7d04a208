import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findMatches } from './match.ts';
import type { OcrWord } from './types.ts';

/** Words laid out like a screen: 10 px per character, 6 px gaps, one row per line. */
function layout(rows: string[][], confidence = 0.9): OcrWord[] {
  const words: OcrWord[] = [];
  rows.forEach((row, line) => {
    let x = 10;
    for (const text of row) {
      words.push({ text, confidence, x, y: 20 + line * 30, width: text.length * 10, height: 14, line });
      x += text.length * 10 + 6;
    }
  });
  return words;
}

describe('core: ocr text matching', () => {
  it('matches case-insensitively and normalises whitespace in the query', () => {
    const words = layout([['File', 'Edit', 'View']]);
    const [m] = findMatches(words, '  eDiT ');
    assert.deepEqual(m, { text: 'Edit', confidence: 0.9, x: 56, y: 20, width: 40, height: 14 });
  });
  it('matches a multi-word query across consecutive words of one line only', () => {
    const words = layout([['Save', 'As', 'Copy'], ['Save'], ['As']]);
    const matches = findMatches(words, 'save   as');
    assert.equal(matches.length, 1);
    assert.deepEqual(matches[0], { text: 'Save As', confidence: 0.9, x: 10, y: 20, width: 66, height: 14 });
  });
  it('finds a query inside a longer word with a box cut in proportion to its characters', () => {
    const words = layout([['Unsaved']]);
    const [m] = findMatches(words, 'save');
    assert.equal(m!.text, 'save');
    assert.deepEqual([m!.x, m!.width], [30, 40]);
    assert.ok(m!.confidence < 0.9, 'inside a word ranks below a whole word');
  });
  it('treats punctuation as a word boundary', () => {
    const [m] = findMatches(layout([['Name:']]), 'name');
    assert.deepEqual([m!.text, m!.confidence, m!.width], ['Name', 0.9, 40]);
  });
  it('accepts OCR slips at similarity ≥ 0.8 with lowered confidence, and refuses worse', () => {
    const words = layout([['Setings', 'Terminai']]);
    const [settings] = findMatches(words, 'Settings');
    assert.equal(settings!.text, 'Setings');
    assert.ok(settings!.confidence < 0.9 && settings!.confidence > 0.7);
    assert.equal(findMatches(words, 'terminal')[0]!.text, 'Terminai');
    assert.deepEqual(findMatches(words, 'Setup'), []);
  });
  it('finds a slip inside a longer word, boxed on its characters', () => {
    const [m] = findMatches(layout([['root@umhub:~#']]), 'root@vmhub');
    assert.deepEqual([m!.text, m!.x, m!.width], ['root@umhub', 10, 100]);
    assert.ok(m!.confidence < 0.9 * 0.9);
  });
  it('matches words OCR split or merged', () => {
    assert.equal(findMatches(layout([['Sign', 'in']]), 'signin')[0]!.text, 'Sign in');
    assert.equal(findMatches(layout([['Signin']]), 'sign in')[0]!.text, 'Signin');
  });
  it('finds a word a terminal cursor split, with junk glued to its second half', () => {
    // xterm's hollow cursor after "walrus" read as "wal" + "rus||" (seen on the x11 golden)
    const [m] = findMatches(layout([['$', 'echo', 'wal', 'rus||']]), 'walrus');
    assert.equal(m!.text, 'wal rus');
    assert.equal(m!.x, 10 + 16 + 46, 'box starts at "wal"');
    assert.equal(m!.x + m!.width, 10 + 16 + 46 + 36 + 30, 'and ends after "rus", not after the junk');
  });
  it('ranks exact whole words before in-word and fuzzy matches, then by confidence', () => {
    const words = [
      ...layout([['Windows']], 0.99),
      ...layout([[], ['Wlndow']], 0.99),
      ...layout([[], [], ['Window']], 0.6),
      ...layout([[], [], [], ['window']], 0.8),
    ];
    const matches = findMatches(words, 'window');
    assert.deepEqual(matches.map((m) => [m.text, m.y]), [['window', 110], ['Window', 80], ['Window', 20], ['Wlndow', 50]]);
  });
  it('keeps one match per stretch of text and drops those under min_confidence', () => {
    const words = layout([['ok', 'ok']], 0.5);
    assert.equal(findMatches(words, 'ok').length, 2);
    assert.deepEqual(findMatches(words, 'ok', { minConfidence: 0.6 }), []);
    assert.equal(findMatches(layout([['banana']]), 'ana').length, 1, 'overlapping hits in one word count once');
  });
  it('is deterministic and empty for an empty query', () => {
    const words = layout([['a', 'b', 'a', 'b'], ['a', 'b']]);
    assert.deepEqual(findMatches(words, 'a b'), findMatches([...words].reverse(), 'a b'));
    assert.deepEqual(findMatches(words, '   '), []);
  });
});
