import type { OcrWord } from './types.ts';

/**
 * Parse the TSV that `tesseract … tsv` writes into words. Only level-5 rows are words; rows with
 * conf -1 (layout rows) or blank text are dropped. Each distinct page/block/paragraph/line becomes
 * one line number, numbered in the order tesseract emits them.
 */
export function parseTsv(tsv: string): OcrWord[] {
  const words: OcrWord[] = [];
  const lines = new Map<string, number>();
  for (const row of tsv.split('\n')) {
    const cols = row.split('\t');
    if (cols.length < 12 || cols[0] !== '5') continue;
    const conf = Number(cols[10]);
    const text = cols.slice(11).join('\t').trim();
    if (!text || !Number.isFinite(conf) || conf < 0) continue;
    const key = `${cols[1]}.${cols[2]}.${cols[3]}.${cols[4]}`;
    let line = lines.get(key);
    if (line === undefined) { line = lines.size; lines.set(key, line); }
    words.push({
      text,
      confidence: Math.min(1, Math.round(conf * 10) / 1000),
      x: Number(cols[6]), y: Number(cols[7]), width: Number(cols[8]), height: Number(cols[9]),
      line,
    });
  }
  return words;
}
