/**
 * @vmhub/core/ocr — text on screen: the tesseract engine (its Debian binary, no npm dependency;
 * sharp, core's optional peer, prepares the pixels), matching a query against recognised words,
 * text elements for set-of-mark screenshots, and a cache that skips OCR on unchanged pixels.
 */
export type { OcrEngine, OcrImage, OcrWord, TextBox, TextElement, TextMatch } from './types.ts';
export { createTesseractEngine, detectTesseract, TESSERACT_HINT, type TesseractDetection, type TesseractOptions } from './tesseract.ts';
export { prepareForOcr, type Polarity, type PrepareOptions, type PreparedImage } from './prepare.ts';
export { parseTsv } from './tsv.ts';
export { findMatches, type FindOptions } from './match.ts';
export { textElements } from './elements.ts';
export { cachedOcr, type CachedOcrOptions } from './cache.ts';
