/**
 * The server's OCR engine for the text tools (vm_find_text, vm_wait {for: "text"},
 * vm_click {text}, vm_screenshot {marks}): tesseract's binary, found once on first use and kept,
 * behind a cache so polling an unchanged screen never runs it twice and a changed screen is read
 * in proportion to what changed (core's cachedOcr: the rows around the change, the other words
 * kept from the closest of the last 4 screens read; each read logged at debug as "ocr read").
 * `ocr.engine: "none"` (or a
 * machine without tesseract) makes those tools answer CAPABILITY_UNAVAILABLE with the install
 * hint; a missing binary is looked for again after a minute, so installing it needs no restart.
 * Recognitions run at most one per two cores at once (each runs two tesseract processes): many
 * leases polling for text queue rather than starve the server's host.
 */
import { availableParallelism } from 'node:os';
import { VmhubError, type OcrEngine, type OcrImage } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';
import { log } from './log.ts';

const RETRY_MISSING_MS = 60_000;

export function ocrHost(config: VmhubConfig['ocr']): () => Promise<OcrEngine> {
  if (config.engine === 'none') {
    const off = new VmhubError('CAPABILITY_UNAVAILABLE', '[vmhub] OCR is turned off on this server (ocr.engine "none" / VMHUB_OCR=none)', { source: 'ocr', hint: 'Set ocr.engine to "tesseract" (and install tesseract-ocr) to use text tools; vm_screenshot and coordinates work without it.' });
    return () => Promise.reject(off);
  }
  let found: Promise<OcrEngine> | undefined;
  let missingAt = 0;
  return () => {
    if (found && !(missingAt && Date.now() - missingAt > RETRY_MISSING_MS)) return found;
    missingAt = 0;
    found = (async () => {
      const { detectTesseract, cachedOcr } = await import('@vmhub/core/ocr');
      const r = await detectTesseract({ ...(config.tesseract_path ? { binary: config.tesseract_path } : {}), languages: config.languages });
      if ('engine' in r) return cachedOcr(limited(r.engine, Math.max(1, Math.floor(availableParallelism() / 2))), { entries: 8, bases: 4, onRead: (read) => log('debug', 'ocr read', { ...read }) });
      missingAt = Date.now();
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] no OCR engine: ${r.problem}`, { source: 'ocr', hint: r.hint });
    })();
    return found;
  };
}

/** An engine that runs at most `max` recognitions at once; the rest wait their turn (or their abort). */
export function limited(engine: OcrEngine, max: number): OcrEngine {
  let active = 0;
  const queue: (() => void)[] = [];
  // A finishing run hands its slot straight to the next in line, so nobody can slip in between.
  const release = () => { const next = queue.shift(); if (next) next(); else active--; };
  const acquire = (signal: AbortSignal | undefined) => {
    if (active < max) { active++; return Promise.resolve(); }
    return new Promise<void>((resolve, reject) => {
      const go = () => { signal?.removeEventListener('abort', onAbort); resolve(); };
      const onAbort = () => { queue.splice(queue.indexOf(go), 1); reject(new VmhubError('TIMEOUT', '[vmhub] OCR was cancelled while waiting for a free OCR slot')); };
      queue.push(go);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  };
  return {
    id: engine.id,
    async recognize(image: OcrImage, options: { signal?: AbortSignal } = {}) {
      await acquire(options.signal);
      try {
        return await engine.recognize(image, options);
      } finally {
        release();
      }
    },
  };
}
