import { createHash } from 'node:crypto';
import { abortError, throwIfAborted } from './abort.ts';
import type { OcrEngine, OcrImage, OcrWord } from './types.ts';

export interface CachedOcrOptions {
  /** How many distinct screens to remember (least recently used goes first). Default 8. */
  entries?: number;
}

interface Run {
  words: Promise<OcrWord[]>;
  controller: AbortController;
  waiting: number;
}

/**
 * An engine that answers identical pixels from memory: vm_wait polls an unchanged screen and
 * find_text-then-click reads the same frame twice, and neither should run tesseract again. The
 * key is a digest of the pixels and their size, so memory is the words alone, `entries` screens.
 * Callers asking for the same screen at once share one run; it is aborted only when all of them
 * have given up.
 */
export function cachedOcr(engine: OcrEngine, options: CachedOcrOptions = {}): OcrEngine {
  const entries = Math.max(1, options.entries ?? 8);
  const done = new Map<string, OcrWord[]>();
  const running = new Map<string, Run>();

  function remember(key: string, words: OcrWord[]): void {
    done.delete(key);
    done.set(key, words);
    while (done.size > entries) done.delete(done.keys().next().value!);
  }

  return {
    id: engine.id,
    async recognize(image: OcrImage, opts: { signal?: AbortSignal } = {}): Promise<OcrWord[]> {
      throwIfAborted(opts.signal);
      const key = digest(image);
      const hit = done.get(key);
      if (hit) { remember(key, hit); return hit.map((w) => ({ ...w })); }
      let run = running.get(key);
      // a run everyone else gave up on is aborting: start afresh rather than join its rejection
      if (!run || run.controller.signal.aborted) {
        const controller = new AbortController();
        const words = engine.recognize(image, { signal: controller.signal });
        const started: Run = { words, controller, waiting: 0 };
        run = started;
        running.set(key, started);
        words.then((w) => remember(key, w), () => {}).finally(() => { if (running.get(key) === started) running.delete(key); });
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
