/**
 * The OCR contract core's text tools (vm_find_text, vm_wait {for: "text"}, vm_click {text},
 * vm_screenshot {marks}) run on. An engine turns raw screen pixels into words with boxes; core
 * does the rest (matching, marks, coordinate mapping), so any engine that yields words works for
 * every adapter at once. The server picks the engine (`@vmhub/core/ocr`'s tesseract by default);
 * without one, those tools answer CAPABILITY_UNAVAILABLE with the install hint.
 */

/** Raw pixels at screen resolution, top-left origin, rows packed (no stride padding). */
export interface OcrImage {
  data: Buffer;
  width: number;
  height: number;
  /** 1 = grey, 3 = RGB, 4 = RGBA. */
  channels: 1 | 3 | 4;
}

/** Text with a box in the OcrImage's pixels and how sure the engine is of it. */
export interface TextBox {
  text: string;
  /** 0..1. */
  confidence: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One recognised word. */
export interface OcrWord extends TextBox {
  /** Words with the same line number are one line of text, in reading order within it. */
  line: number;
}

/** Rows [top, bottom) of an OcrImage. */
export type RowBand = readonly [top: number, bottom: number];

export interface RecognizeOptions {
  signal?: AbortSignal;
  /**
   * Read only these bands of rows, across the image's whole width, prepared as a whole read
   * prepares them (so the words come out as a whole read would give them); the words whose centre
   * lies in a band, boxes in the image's pixels. An engine may read more; callers keep what is in
   * the bands.
   */
  rows?: readonly RowBand[];
}

export interface OcrEngine {
  /** e.g. "tesseract 5.3.0". */
  readonly id: string;
  /** Recognise the words on the image; rejects with a VmhubError, aborts on the signal. */
  recognize(image: OcrImage, options?: RecognizeOptions): Promise<OcrWord[]>;
}

/**
 * A match of a query in the recognised text: its `text` is what was recognised (it may differ
 * from the query in case or by OCR slips); its confidence is the words' OCR confidence times how
 * closely they match the query.
 */
export type TextMatch = TextBox;

/** A numbered box for set-of-mark screenshots: a run of words on one line that read as one element. */
export type TextElement = TextBox;
