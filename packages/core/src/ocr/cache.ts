import { createHash } from 'node:crypto';
import { abortError, throwIfAborted } from './abort.ts';
import { sameShape } from '../screenshot.ts';
import { changedRowCount, mergeWords, planRead, rowsToRead } from './incremental.ts';
import type { OcrEngine, OcrImage, OcrWord, RecognizeOptions } from './types.ts';

export interface CachedOcrOptions {
  /** How many distinct screens to remember (least recently used goes first). Default 8. */
  entries?: number;
  /**
   * How many of the most recently used screens keep a copy of their pixels, to read a new screen
   * in proportion to what changed from the closest of them (incremental.ts). 0: every new screen
   * is read whole. Default 4 (4 MB each at 1280×800 RGBA).
   */
  bases?: number;
  /** Told of every read the engine ran for a new screen: whole, or which share of the rows (logs, benches). */
  onRead?: (read: OcrRead) => void;
}

/** One read of a new screen: `rows` of the image's `height` went to the engine, in `ms`. */
export interface OcrRead { kind: 'whole' | 'rows'; rows: number; height: number; ms: number }

interface Entry {
  words: OcrWord[];
  /** A copy of the pixels the words were read on, for the newest `bases` entries. */
  image?: OcrImage;
}

interface Run {
  words: Promise<OcrWord[]>;
  controller: AbortController;
  waiting: number;
}

/**
 * An engine that answers identical pixels from memory: vm_wait polls an unchanged screen and
 * find_text-then-click reads the same frame twice, and neither should run tesseract again. The
 * key is a digest of the pixels and their size; memory is the words of `entries` screens and the
 * pixels of the newest `bases`. A screen not seen before is read in proportion to what changed:
 * of the remembered screens of its shape (any lease's: what counts is identical pixels), the one
 * with the fewest changed rows is its base, and only the bands of rows around the change are read
 * (engine.recognize's `rows`), the base's other words kept; a large change is read whole.
 * Callers asking for the same screen at once share one run; it is aborted only when all of them
 * have given up.
 */
export function cachedOcr(engine: OcrEngine, options: CachedOcrOptions = {}): OcrEngine {
  const entries = Math.max(1, options.entries ?? 8);
  const bases = Math.max(0, options.bases ?? 4);
  const done = new Map<string, Entry>();
  const running = new Map<string, Run>();

  function remember(key: string, entry: Entry): void {
    done.delete(key);
    done.set(key, entry);
    while (done.size > entries) done.delete(done.keys().next().value!);
    // only the newest `bases` entries keep their pixels
    let keep = bases;
    for (const e of [...done.values()].reverse()) if (e.image && keep-- <= 0) delete e.image;
  }

  /** The remembered screen closest to `image` (fewest changed rows), if any has its shape. */
  function closest(image: OcrImage): Entry | undefined {
    let best: Entry | undefined, fewest = Infinity;
    for (const e of done.values()) {
      if (!e.image || !sameShape(e.image, image)) continue;
      const n = changedRowCount(e.image, image, fewest);
      if (n < fewest) { best = e; fewest = n; }
    }
    return best;
  }

  /** Read `image` whole, or only what changed from the closest remembered screen. */
  async function read(image: OcrImage, opts: RecognizeOptions): Promise<OcrWord[]> {
    const started = performance.now();
    const base = closest(image);
    const plan = base?.image ? planRead(base.image, base.words, image) : 'whole';
    if (plan === 'same') return base!.words;
    const rows = plan === 'whole' ? undefined : rowsToRead(plan, image.height, base!.words);
    const read = await engine.recognize(image, rows ? { ...opts, rows } : opts);
    const words = plan === 'whole' ? read : mergeWords(base!.words, plan, read);
    options.onRead?.({ kind: rows ? 'rows' : 'whole', rows: rows ? rows.reduce((n, [t, b]) => n + b - t, 0) : image.height, height: image.height, ms: Math.round(performance.now() - started) });
    return words;
  }

  return {
    id: engine.id,
    async recognize(image: OcrImage, opts: RecognizeOptions = {}): Promise<OcrWord[]> {
      throwIfAborted(opts.signal);
      // a read of some rows is the engine's business, not a screen to remember
      if (opts.rows) return engine.recognize(image, opts);
      const key = digest(image);
      const hit = done.get(key);
      if (hit) { remember(key, hit); return hit.words.map((w) => ({ ...w })); }
      let run = running.get(key);
      // a run everyone else gave up on is aborting: start afresh rather than join its rejection
      if (!run || run.controller.signal.aborted) {
        const controller = new AbortController();
        // a copy: the caller may reuse its buffer, and this one is the next read's base
        const pixels: OcrImage | undefined = bases > 0 ? { ...image, data: Buffer.from(image.data) } : undefined;
        const words = read(pixels ?? image, { signal: controller.signal });
        const started: Run = { words, controller, waiting: 0 };
        run = started;
        running.set(key, started);
        words.then((w) => remember(key, { words: w, ...(pixels ? { image: pixels } : {}) }), () => {}).finally(() => { if (running.get(key) === started) running.delete(key); });
      }
      const words = await share(run, opts.signal);
      return words.map((w) => ({ ...w }));
    },
  };
}

function share(run: Run, signal: AbortSignal | undefined): Promise<OcrWord[]> {
  run.waiting++;
  if (!signal) return run.words.finally(() => { run.waiting--; });
  return new Promise<OcrWord[]>((resolve, reject) => {
    const onAbort = () => {
      leave();
      reject(abortError(signal));
    };
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      signal.removeEventListener('abort', onAbort);
      if (--run.waiting === 0) run.controller.abort(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    run.words.then((w) => { left = true; run.waiting--; signal.removeEventListener('abort', onAbort); resolve(w); },
      (err) => { left = true; run.waiting--; signal.removeEventListener('abort', onAbort); reject(err); });
  });
}

function digest(image: OcrImage): string {
  return createHash('sha1').update(image.data).update(`${image.width}x${image.height}x${image.channels}`).digest('hex');
}
