/**
 * @vmhub/core/ocr — text on screen: the tesseract engine (its Debian binary, no npm dependency;
 * sharp, core's optional peer, prepares the pixels), matching a query against recognised words,
 * text elements for set-of-mark screenshots, and a cache that skips OCR on unchanged pixels and
 * reads a changed screen in proportion to what changed (incremental.ts).
 */
export type { OcrEngine, OcrImage, OcrWord, RecognizeOptions, RowBand, TextBox, TextElement, TextMatch } from './types.ts';
export { createTesseractEngine, detectTesseract, TESSERACT_HINT, type TesseractDetection, type TesseractOptions } from './tesseract.ts';
export { prepareForOcr, prepareRows, type Polarity, type PrepareOptions, type PreparedImage, type PreparedRows } from './prepare.ts';
export { parseTsv } from './tsv.ts';
export { findMatches, type FindOptions } from './match.ts';
export { textElements } from './elements.ts';
export { cachedOcr, type CachedOcrOptions, type OcrRead } from './cache.ts';
export { planRead, mergeWords, rowsToRead, type Plan } from './incremental.ts';
