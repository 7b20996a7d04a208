/**
 * vm_wait: poll captures until the screen settles, changes, or shows a text; an unmet condition
 * at the timeout is an answer ({satisfied: false}), not an error. Polls start ~80 ms apart and
 * slow down while nothing changes, so a long wait costs few captures.
 */
import { VmhubError } from '../errors.ts';
import type { TextMatch } from '../ocr/types.ts';
import type { ToolInput } from '../tools.ts';
import { captureFrame, sameRegion, type Frame } from './frame.ts';
import { matchesOf, ocrEngine, readWords, shownMatch } from './find-text.ts';
import type { ToolHost } from './types.ts';
import type { BoundLease } from './vm-tools.ts';

export const DEFAULT_WAIT_SECONDS = 10;
export const DEFAULT_SETTLE_MS = 500;
const MIN_POLL_MS = 80;
const MAX_POLL_MS = 400;
/** vm_wait {for: "text"} ignores OCR guesses below this. */
const TEXT_MIN_CONFIDENCE = 0.5;

export interface WaitResult { satisfied: boolean; waited_ms: number; match?: TextMatch }

type WaitInput = Omit<ToolInput<'vm_wait'>, 'lease_id'>;

/** Input checks the schema cannot express; vm_batch runs them before any step. */
export function checkWait(input: WaitInput): void {
  if (input.for === 'text' && !input.text?.trim()) throw new VmhubError('INVALID_REQUEST', 'for "text" needs text: the text to wait for (e.g. {for: "text", text: "Saved"})');
}

/** One condition, fed every frame; true once it holds. */
type Condition = (frame: Frame, at: number) => Promise<boolean> | boolean;

export async function waitFor(b: BoundLease, input: WaitInput, host: ToolHost): Promise<WaitResult> {
  checkWait(input);
  const signal = b.context.signal;
  const timeoutMs = Math.round((input.timeout_seconds ?? DEFAULT_WAIT_SECONDS) * 1000);
  const started = Date.now();
  let match: TextMatch | undefined;
  let condition: Condition;
  if (input.for === 'text') {
    const engine = await ocrEngine(host, 'vm_wait {for: "text"}');
    let lastRead: string | undefined;
    condition = async (frame) => {
      // OCR only a frame that differs from the last one read (the engine caches too).
      if (frame.digest === lastRead) return false;
      lastRead = frame.digest;
      const best = matchesOf(await readWords(engine, frame, signal), input.text!, TEXT_MIN_CONFIDENCE)[0];
      if (best) match = shownMatch(best, b.screen.latest);
      return best !== undefined;
    };
  } else if (input.for === 'change') {
    let baseline: string | undefined;
    condition = async (frame) => {
      // What the agent last saw, when it saw this same region; else this wait's first frame.
      baseline ??= b.screen.frame && sameRegion(b.screen.frame.region, frame.region) ? await b.screen.frame.digest() : frame.digest;
      return frame.digest !== baseline;
    };
  } else {
    condition = settled(input.settle_ms ?? DEFAULT_SETTLE_MS);
  }
  const cap = input.for === 'settle' ? Math.max(MIN_POLL_MS, Math.min(MAX_POLL_MS, (input.settle_ms ?? DEFAULT_SETTLE_MS) / 3)) : MAX_POLL_MS;
  let interval = MIN_POLL_MS;
  let previous: string | undefined;
  for (;;) {
    signal.throwIfAborted();
    const polled = Date.now();
    const frame = await captureFrame(b, input.region);
    if (await condition(frame, Date.now())) return { satisfied: true, waited_ms: Date.now() - started, ...(match ? { match } : {}) };
    // Quick polls while the screen moves, slower ones while it stays put.
    interval = previous === undefined || frame.digest !== previous ? MIN_POLL_MS : Math.min(cap, interval * 1.5);
    previous = frame.digest;
    const left = started + timeoutMs - Date.now();
    if (left <= 0) return { satisfied: false, waited_ms: Date.now() - started };
    await sleep(Math.min(left, Math.max(0, polled + interval - Date.now())), signal);
  }
}

/**
 * Settled = no new content for `ms`. A frame never seen before in this wait starts the quiet
 * window again; so does a third distinct frame inside it. Two states that alternate and were both
 * seen before the window started (a blinking text cursor: the QEMU VGA console and most
 * terminals blink) leave it running; a spinner with more states does not.
 */
function settled(ms: number): Condition {
  const seen = new Set<string>();
  let since = 0;
  let states = new Set<string>();
  return (frame, at) => {
    if (!seen.has(frame.digest)) {
      seen.add(frame.digest);
      since = at;
      states = new Set([frame.digest]);
      return false;
    }
    states.add(frame.digest);
    if (states.size > 2) {
      since = at;
      states = new Set([frame.digest]);
      return false;
    }
    return at - since >= ms;
  };
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => { clearTimeout(timer); reject(signal.reason); };
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
