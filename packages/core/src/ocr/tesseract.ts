import { execFile, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { VmhubError } from '../errors.ts';
import { abortError, throwIfAborted } from './abort.ts';
import { prepareForOcr, prepareRows, toPgm, type PreparedImage, type PrepareOptions, type Tile } from './prepare.ts';
import { parseTsv } from './tsv.ts';
import type { OcrEngine, OcrImage, OcrWord, RecognizeOptions } from './types.ts';

export interface TesseractOptions {
  /** The tesseract executable, a path or a name on PATH. Default `VMHUB_TESSERACT`, else "tesseract". */
  binary?: string;
  /** Language data to load, tesseract's `-l` ("eng+deu"). Default "eng". */
  languages?: string;
  /** Folder holding the *.traineddata files; default tesseract's own (or TESSDATA_PREFIX). */
  tessdataDir?: string;
  /** Page segmentation mode. Default 11 (sparse text: screens are scattered labels, not pages). */
  psm?: number;
  /** OpenMP threads per run (OMP_THREAD_LIMIT). Default 1: more only adds contention on small hosts. */
  threads?: number;
  /**
   * Tesseract processes per image: the screen is cut at blank rows into this many bands, read at
   * once. Default min(2, cores): tesseract is single-threaded at heart, a screen is not.
   */
  parallel?: number;
  /** Bound on one run, in ms; the process is killed past it. Default 30 000. */
  timeoutMs?: number;
  /** Preprocessing (polarity, magnification). */
  prepare?: PrepareOptions;
}

export const TESSERACT_HINT = 'Install tesseract and its English data on the server host (Debian/Ubuntu: apt install tesseract-ocr tesseract-ocr-eng), or point VMHUB_TESSERACT at the binary.';
const SOURCE = 'ocr';

/** An OcrEngine that runs the tesseract binary per image, pixels on stdin, TSV on stdout. No I/O until recognize(). */
export function createTesseractEngine(options: TesseractOptions = {}): OcrEngine {
  return tesseractEngine(options, 'tesseract');
}

function tesseractEngine(options: TesseractOptions, id: string): OcrEngine {
  const binary = options.binary ?? process.env.VMHUB_TESSERACT ?? 'tesseract';
  const args = ['stdin', 'stdout', '-l', options.languages ?? 'eng', '--psm', String(options.psm ?? 11)];
  if (options.tessdataDir) args.push('--tessdata-dir', options.tessdataDir);
  // polarity is settled in prepare; tesseract's own inversion pass would only double the work
  args.push('-c', 'tessedit_do_invert=0', 'tsv');
  const env = { ...process.env, OMP_THREAD_LIMIT: String(options.threads ?? 1) };
  const timeoutMs = options.timeoutMs ?? 30_000;
  const parallel = Math.max(1, options.parallel ?? Math.min(2, availableParallelism()));
  return {
    id,
    async recognize(image: OcrImage, opts: RecognizeOptions = {}): Promise<OcrWord[]> {
      throwIfAborted(opts.signal);
      // only some rows: those bands, stacked, are the image tesseract reads
      const rows = opts.rows ? await prepareRows(image, opts.rows, options.prepare) : undefined;
      const prepared = rows ?? await prepareForOcr(image, options.prepare);
      const source: OcrImage = rows ? { ...image, height: Math.round(rows.height / rows.scaleY) } : image;
      throwIfAborted(opts.signal);
      // one failing band stops the others; the caller's signal stops them all
      const bands = new AbortController();
      const stopBands = () => bands.abort(opts.signal?.reason);
      opts.signal?.addEventListener('abort', stopBands, { once: true });
      try {
        let failure: unknown;
        const settled = await Promise.allSettled(blankCuts(prepared, parallel).map(([top, bottom]) =>
          run(binary, args, env, toPgm(prepared, top, bottom), timeoutMs, bands.signal)
            .then((tsv) => parseTsv(tsv).map((w) => ({ ...w, y: w.y + top })))
            .catch((err: unknown) => { failure ??= err; bands.abort(err); throw err; })));
        // every band's process has exited by now, so a failure leaves nothing running
        if (failure !== undefined) throw failure;
        const read = settled.map((r) => (r as PromiseFulfilledResult<OcrWord[]>).value);
        const words: OcrWord[] = [];
        let lines = 0;
        for (const band of read) {
          for (const w of band) words.push(toImagePixels({ ...w, line: w.line + lines }, prepared, source));
          lines += band.reduce((n, w) => Math.max(n, w.line + 1), 0);
        }
        return rows ? fromTiles(words, rows.tiles) : words;
      } finally {
        opts.signal?.removeEventListener('abort', stopBands);
      }
    },
  };
}

/** Rows [top, bottom) for each band, cut at blank rows near even splits (never through text). */
function blankCuts(image: PreparedImage, parts: number): Array<[number, number]> {
  const cuts = [0];
  for (let k = 1; k < parts; k++) {
    const target = Math.round((image.height * k) / parts), reach = Math.round(image.height / (2 * parts));
    for (let d = 0; d < reach; d++) {
      const row = [target - d, target + d].find((r) => r > cuts[cuts.length - 1]! + 32 && r < image.height - 32 && isBlank(image, r));
      if (row !== undefined) { cuts.push(row); break; }
    }
  }
  cuts.push(image.height);
  return cuts.slice(1).map((bottom, i) => [cuts[i]!, bottom]);
}

function isBlank(image: PreparedImage, row: number): boolean {
  const from = row * image.width;
  for (let i = from; i < from + image.width; i++) if (image.pixels[i]! < 200) return false;
  return true;
}

/** Words of the stacked bands moved back to their rows of the image; words in the gaps between bands dropped. */
function fromTiles(words: OcrWord[], tiles: readonly Tile[]): OcrWord[] {
  const out: OcrWord[] = [];
  for (const w of words) {
    const cy = w.y + w.height / 2;
    const t = tiles.find((t) => cy >= t.at && cy < t.at + t.bottom - t.top);
    if (t) out.push({ ...w, y: w.y + t.top - t.at });
  }
  return out;
}

function toImagePixels(w: OcrWord, { scale, scaleY }: PreparedImage, image: OcrImage): OcrWord {
  if (scale === 1 && scaleY === 1) return w;
  const x = Math.max(0, Math.floor(w.x / scale)), y = Math.max(0, Math.floor(w.y / scaleY));
  const right = Math.min(image.width, Math.ceil((w.x + w.width) / scale));
  const bottom = Math.min(image.height, Math.ceil((w.y + w.height) / scaleY));
  return { ...w, x, y, width: Math.max(1, right - x), height: Math.max(1, bottom - y) };
}

function run(binary: string, args: string[], env: NodeJS.ProcessEnv, input: Buffer, timeoutMs: number, signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    let failure: VmhubError | undefined;
    const stop = (reason: VmhubError) => { failure ??= reason; child.kill('SIGKILL'); };
    const timer = setTimeout(() => stop(new VmhubError('TIMEOUT', `[vmhub] [ocr] tesseract ran past ${timeoutMs} ms and was stopped`, { source: SOURCE })), timeoutMs);
    const onAbort = () => stop(abortError(signal));
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => { err = (err + b.toString()).slice(-2000); });
    // a process that dies early closes stdin under us; its exit status tells the story
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.on('error', (e: NodeJS.ErrnoException) => { failure ??= spawnFailure(binary, e); });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(exitFailure(code, sig, err));
    });
  });
}

function spawnFailure(binary: string, e: NodeJS.ErrnoException): VmhubError {
  if (e.code === 'ENOENT' || e.code === 'EACCES') {
    return new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [ocr] tesseract not found (${binary}: ${e.code})`, { source: SOURCE, hint: TESSERACT_HINT, cause: e });
  }
  return new VmhubError('INTERNAL', `[vmhub] [ocr] tesseract could not start (${binary}): ${e.message}`, { source: SOURCE, cause: e });
}

function exitFailure(code: number | null, sig: NodeJS.Signals | null, stderr: string): VmhubError {
  const tail = stderr.trim().split('\n').slice(-3).join(' | ');
  if (/Failed loading language|Error opening data file|tessdata/i.test(stderr)) {
    return new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [ocr] tesseract has no language data: ${tail}`, { source: SOURCE, hint: TESSERACT_HINT });
  }
  return new VmhubError('INTERNAL', `[vmhub] [ocr] tesseract failed (${sig ?? `exit ${code}`}): ${tail || 'no message'}`, { source: SOURCE });
}

export type TesseractDetection = { engine: OcrEngine } | { problem: string; hint: string };

/** Check that the binary runs and has every language asked for; the engine's id names the version. */
export async function detectTesseract(options: TesseractOptions = {}): Promise<TesseractDetection> {
  const binary = options.binary ?? process.env.VMHUB_TESSERACT ?? 'tesseract';
  const env = { ...process.env, OMP_THREAD_LIMIT: '1' };
  let version: string;
  try {
    version = await capture(binary, ['--version'], env);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const problem = code === 'ENOENT' ? `tesseract not found (${binary})` : `tesseract did not run (${binary}): ${(e as Error).message}`;
    return { problem, hint: TESSERACT_HINT };
  }
  const listArgs = options.tessdataDir ? ['--tessdata-dir', options.tessdataDir, '--list-langs'] : ['--list-langs'];
  let langs: string[];
  try {
    langs = (await capture(binary, listArgs, env)).split('\n').slice(1).map((l) => l.trim()).filter(Boolean);
  } catch (e) {
    return { problem: `tesseract could not list its language data: ${(e as Error).message}`, hint: TESSERACT_HINT };
  }
  const missing = (options.languages ?? 'eng').split('+').filter((l) => !langs.includes(l));
  if (missing.length) {
    return { problem: `tesseract has no language data for ${missing.join(', ')} (has: ${langs.join(', ') || 'none'})`, hint: TESSERACT_HINT.replace('tesseract-ocr-eng', missing.map((l) => `tesseract-ocr-${l}`).join(' ')) + ' Or set tessdataDir / TESSDATA_PREFIX to the folder with the .traineddata files.' };
  }
  const id = /tesseract\s+v?(\S+)/i.exec(version)?.[0] ?? 'tesseract';
  return { engine: tesseractEngine(options, id) };
}

function capture(binary: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { env, timeout: 10_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(err);
      else resolve(`${stdout}\n${stderr}`.trim());
    });
  });
}
