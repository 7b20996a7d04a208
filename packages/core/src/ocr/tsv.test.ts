import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTsv } from './tsv.ts';

// Recorded from `tesseract stdin stdout --psm 11 tsv` on a dark 400×100 screen (two text rows),
// plus a blank level-5 row and a -1 word row as tesseract emits them on noise.
const RECORDED = [
  'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext',
  '1\t1\t0\t0\t0\t0\t0\t0\t400\t100\t-1\t',
  '2\t1\t1\t0\t0\t0\t11\t29\t137\t11\t-1\t',
  '3\t1\t1\t1\t0\t0\t11\t29\t137\t11\t-1\t',
  '4\t1\t1\t1\t1\t0\t11\t29\t137\t11\t-1\t',
  '5\t1\t1\t1\t1\t1\t11\t29\t34\t11\t94.949562\tHello',
  '5\t1\t1\t1\t1\t2\t51\t29\t36\t11\t96.669350\tworld',
  '5\t1\t1\t1\t1\t3\t94\t29\t22\t11\t96.669350\tFile',
  '5\t1\t1\t1\t1\t4\t122\t29\t26\t11\t82.945862\tEdit',
  '5\t1\t1\t1\t1\t5\t150\t29\t4\t11\t95.000000\t ',
  '2\t1\t2\t0\t0\t0\t11\t71\t78\t11\t-1\t',
  '3\t1\t2\t1\t0\t0\t11\t71\t78\t11\t-1\t',
  '4\t1\t2\t1\t1\t0\t11\t71\t78\t11\t-1\t',
  '5\t1\t2\t1\t1\t1\t11\t71\t12\t9\t54.687420\t1s',
  '5\t1\t2\t1\t1\t2\t34\t71\t18\t9\t-1\t-la',
  '5\t1\t2\t1\t1\t3\t61\t71\t28\t11\t84.754799\t/tmp',
].join('\n');

describe('core: ocr tsv', () => {
  it('keeps level-5 words with their boxes, confidence 0..1', () => {
    const words = parseTsv(RECORDED);
    assert.deepEqual(words.map((w) => w.text), ['Hello', 'world', 'File', 'Edit', '1s', '/tmp']);
    assert.deepEqual(words[0], { text: 'Hello', confidence: 0.949, x: 11, y: 29, width: 34, height: 11, line: 0 });
    assert.ok(words.every((w) => w.confidence > 0 && w.confidence <= 1));
  });
  it('numbers each block/paragraph/line once, in order', () => {
    const words = parseTsv(RECORDED);
    assert.deepEqual(words.map((w) => w.line), [0, 0, 0, 0, 1, 1]);
    const sameLineNumbersInOtherBlock = RECORDED + '\n5\t1\t3\t1\t1\t1\t200\t71\t30\t11\t90\tmore';
    assert.equal(parseTsv(sameLineNumbersInOtherBlock).at(-1)!.line, 2);
  });
  it('ignores the header, empty input and short rows', () => {
    assert.deepEqual(parseTsv(''), []);
    assert.deepEqual(parseTsv('level\tpage_num\n5\t1\t1'), []);
  });
});
