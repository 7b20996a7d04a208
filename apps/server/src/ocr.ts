/**
 * The server's OCR engine for the text tools (vm_find_text, vm_wait {for: "text"},
 * vm_click {text}, vm_screenshot {marks}): tesseract's binary, found once on first use and kept,
 * behind a cache so polling an unchanged screen never runs it twice. `ocr.engine: "none"` (or a
 * machine without tesseract) makes those tools answer CAPABILITY_UNAVAILABLE with the install
 * hint; a missing binary is looked for again after a minute, so installing it needs no restart.
 */
import { VmhubError, type OcrEngine } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';

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
      if ('engine' in r) return cachedOcr(r.engine, { entries: 8 });
      missingAt = Date.now();
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] no OCR engine: ${r.problem}`, { source: 'ocr', hint: r.hint });
    })();
    return found;
  };
}
