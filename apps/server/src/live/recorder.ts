/**
 * Recordings: every lease's trajectory on disk, `<root>/<lease id>/steps.jsonl` (one Step per
 * line) beside the images it names (`NNNN.png`). The agent's VM-bound calls arrive through the
 * router's `record` hook, the person's turns from the live API.
 *
 * Never on the agent's critical path: a step is queued and written later, one write chain per
 * lease (so steps keep their order), with at most one frame capture in flight per lease —
 * input actions that arrive while a capture waits share it, and captures of a lease start at
 * least CAPTURE_GAP_MS apart (a burst of input shares one frame). The frame after an input is
 * taken CAPTURE_SETTLE_MS after it (the application has drawn its answer by then), unless the agent
 * takes a full screenshot first: that image is the frame after the input, written once for both
 * steps, and nothing is captured (act, then look, is what agents do; the capture beside the
 * agent's own screenshot cost it CPU at the moment it waited for its image). Bounded: past MAX_IMAGE_STEPS steps
 * or MAX_IMAGE_BYTES of images a lease's recording keeps no more images (a step says so), and
 * past MAX_STEPS it stops (a final step says so). A sweep deletes folders untouched for
 * `keepHours` (never the folder of a lease live in this process). Reading goes through `read(id)`
 * only: the id is validated and nothing outside `<root>/<id>/` is opened.
 *
 * A lease's recording state (numbering, image budget, the waiting group, the last image) is state
 * of its session in this process (LeaseSession.state): it goes with the session, whose dispose
 * waits (at most END_WAIT_MS) for the steps queued so far. Steps for a lease without a session
 * here (a person's take-over of a lease another server process serves, a step that arrives as
 * the lease ends) get a recording of their own that re-reads the folder and is forgotten once
 * its writes are done. Writes in flight are known by lease id, so a step always joins the queue
 * of a recording still writing for its lease: one write chain per lease, never two.
 */
import { appendFile, lstat, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RecordedCall } from '@vmhub/core/router';
import { log } from '../log.ts';
import type { LeaseSession, LeaseStateKey } from '../sessions/lease-session.ts';
import { redactArgs } from './redact.ts';
import { stepResult } from './step-result.ts';

export const LEASE_ID = /^[0-9a-f-]{36}$/;
const IMAGE_FILE = /^\d{4,}\.(png|jpg|webp)$/;
export const MAX_IMAGE_STEPS = 2000;
export const MAX_IMAGE_BYTES = 200 * 1024 * 1024;
export const MAX_STEPS = 20_000;
const SWEEP_MS = 60 * 60 * 1000;
const STEPS_FILE = 'steps.jsonl';
/** Least time between two frame captures of one lease. */
export const CAPTURE_GAP_MS = 250;
/** How long after an input its frame is taken, when the agent does not take one itself first. */
export const CAPTURE_SETTLE_MS = 200;
/** How long a lease's end waits for its queued steps to be written. */
export const END_WAIT_MS = 3000;

/** Input tools after which a frame is captured (the agent did not see the result itself). */
const FRAME_AFTER = new Set(['vm_click', 'vm_type', 'vm_key', 'vm_paste', 'vm_drag', 'vm_scroll', 'vm_batch', 'vm_launch', 'vm_focus', 'vm_close']);
const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };
const MIME: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

/** A vm_screenshot of the whole screen as it is (not a region, a changed box or marks drawn on it): a frame. */
export function wholeScreenshot(tool: string, args: Record<string, unknown>): boolean {
  return tool === 'vm_screenshot' && !args.region && !args.changed_only && !args.marks;
}

export interface Step {
  seq: number;
  at: string;
  actor: 'agent' | 'human';
  /** Who made the call: the agent's authenticated principal, or the person's (the dashboard token's). */
  principal?: string;
  tool: string;
  outcome: 'ok' | 'error';
  code?: string;
  duration_ms: number;
  args: Record<string, unknown>;
  /** What the call answered, redacted and bounded (step-result.ts): the error's code and message, or the structured result. */
  result?: Record<string, unknown>;
  note?: string;
  /** On disk: the image's file name; from `read()`: a data URL. */
  screenshot?: string;
}

type NewStep = Omit<Step, 'seq' | 'screenshot'>;
/** `name`: the file it was written to, once written (an image written for two steps is written once). */
type Image = { data: Buffer; ext: string; name?: string };

/** Input steps waiting for the frame after them. */
interface Waiting {
  steps: NewStep[];
  /** When the last of their calls ended (ms): their frame is taken CAPTURE_SETTLE_MS after the first's, and a screenshot begun before it may not show them. */
  ended: number;
  /** The agent's full screenshot, when it took one before the capture: their frame. */
  image?: Image;
}

export interface RecordingsOptions {
  enabled: boolean;
  keepHours: number;
  /** The folder holding one folder per lease (resolved once, on first use). */
  root: () => Promise<string>;
  /** A PNG of the lease's screen now, or undefined (no screen, lease gone). */
  capture: (leaseId: string) => Promise<Buffer | undefined>;
  /** The lease's session in this process, if it has one: an agent's call on a lease without one records nothing. */
  session: (leaseId: string) => Promise<Pick<LeaseSession, 'state'> | undefined>;
  /**
   * Take `n` step numbers for the lease, shared by every process writing its recording (the
   * store's takeRecordingSteps); resolves to the last. `floor`: the last number this process knows
   * (at first, the steps the folder holds), which the store numbers after when the lease has no
   * count yet. Absent: this process numbers alone, after the folder's steps.
   */
  number?: (leaseId: string, n: number, floor: number) => Promise<number>;
}

interface LeaseRecording {
  id: string;
  /** The last step number this process gave (at first, the folder's count); undefined until the folder was read on first use. */
  seq?: number;
  bytes: number;
  images: boolean;
  stopped: boolean;
  chain: Promise<void>;
  /** Steps waiting for a capture that has not started yet: a new input step joins them. */
  waiting?: Waiting;
  /** When this lease's last frame capture started (ms). */
  capturedAt?: number;
  /** The image written last: a frame byte-identical to it (nothing moved) names the same file. */
  lastImage?: Image;
}

export class Recordings {
  readonly enabled: boolean;
  readonly #options: RecordingsOptions;
  /** Recordings with queued writes, by lease id; each forgotten once its writes are done. */
  readonly #writing = new Map<string, LeaseRecording>();
  /** Steps handed in whose recording is still being looked up (#handIn). */
  readonly #handedIn = new Map<string, Promise<void>>();
  /** A lease session's recording: made on first use, its queued steps awaited when the lease ends. */
  readonly #kept: LeaseStateKey<LeaseRecording> = {
    name: 'recording',
    make: (id) => newRecording(id),
    end: (rec) => bounded(rec.chain, END_WAIT_MS),
  };
  #root: Promise<string> | undefined;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: RecordingsOptions) {
    this.enabled = options.enabled;
    this.#options = options;
  }

  root(): Promise<string> {
    this.#root ??= this.#options.root();
    return this.#root;
  }

  /** The router's hook: one agent step per VM-bound call, by `principal`. Never throws, never waits. */
  agent(call: RecordedCall, principal: string): void {
    if (!this.enabled || !LEASE_ID.test(call.lease_id)) return;
    const id = call.lease_id;
    const structured = call.result.structuredContent as { human_note?: unknown } | undefined;
    const result = stepResult(call.outcome, call.result);
    const step: NewStep = {
      at: call.at, actor: 'agent', principal, tool: call.tool, outcome: call.outcome, ...(call.code ? { code: call.code } : {}),
      duration_ms: call.duration_ms, args: redactArgs(call.args), ...(result ? { result } : {}),
      ...(typeof structured?.human_note === 'string' ? { note: structured.human_note } : {}),
    };
    const shown = call.outcome === 'ok' ? call.result.content.find((c) => c.type === 'image') : undefined;
    const image = shown?.type === 'image' ? { data: Buffer.from(shown.data, 'base64'), ext: EXT[shown.mimeType] ?? 'png' } : undefined;
    const frame = !image && call.outcome === 'ok' && FRAME_AFTER.has(call.tool);
    const whole = wholeScreenshot(call.tool, call.args);
    this.#handIn(id, false, (rec) => this.#enqueue(rec, step, image ?? (frame ? 'capture' : undefined), whole));
  }

  /** A person's turn (take-over, hand-back, input); `frame`: capture the screen after it. */
  human(leaseId: string, principal: string | null, tool: string, args: Record<string, unknown>, options: { note?: string; frame?: boolean; outcome?: 'ok' | 'error'; code?: string; duration_ms?: number } = {}): void {
    if (!this.enabled || !LEASE_ID.test(leaseId)) return;
    const step: NewStep = {
      at: new Date().toISOString(), actor: 'human', ...(principal !== null ? { principal } : {}), tool, outcome: options.outcome ?? 'ok', ...(options.code ? { code: options.code } : {}),
      duration_ms: options.duration_ms ?? 0, args: redactArgs(args), ...(options.note !== undefined ? { note: options.note } : {}),
    };
    this.#handIn(leaseId, true, (rec) => this.#enqueue(rec, step, options.frame && step.outcome === 'ok' ? 'capture' : undefined));
  }

  /**
   * Queue a step on its lease's recording once that is found (#recording reads the session:
   * async). Per lease in hand-in order; read() and flush() wait for what is handed in, not only
   * for what is already queued (a step handed in just before a read was missing from it).
   */
  #handIn(id: string, sessionless: boolean, queue: (rec: LeaseRecording) => void): void {
    const found = (this.#handedIn.get(id) ?? Promise.resolve())
      .then(() => this.#recording(id, sessionless))
      .then((rec) => { if (rec) queue(rec); }, () => undefined);
    this.#handedIn.set(id, found);
    void found.then(() => { if (this.#handedIn.get(id) === found) this.#handedIn.delete(id); });
  }

  /** Everything written so far for the lease (after its queued steps), images as data URLs. */
  async read(leaseId: string): Promise<Step[]> {
    return this.#steps(leaseId, true);
  }

  /** The steps as read() gives them, but `screenshot` the image's file name (no image is read). */
  steps(leaseId: string): Promise<Step[]> {
    return this.#steps(leaseId, false);
  }

  /** The image of step `seq`, or undefined (no such step, or it has none). */
  async frame(leaseId: string, seq: number): Promise<{ data: Buffer; mime: string } | undefined> {
    const name = (await this.#steps(leaseId, false)).find((s) => s.seq === seq)?.screenshot;
    return name ? this.image(leaseId, name) : undefined;
  }

  /** The recording's image file `name` (a step's `screenshot` as steps() gives it), or undefined. */
  async image(leaseId: string, name: string): Promise<{ data: Buffer; mime: string } | undefined> {
    if (!LEASE_ID.test(leaseId) || !IMAGE_FILE.test(name)) return undefined;
    const file = join(await this.root(), leaseId, name);
    if (!(await lstat(file).catch(() => undefined))?.isFile()) return undefined;
    const data = await readFile(file).catch(() => undefined);
    return data ? { data, mime: MIME[name.split('.').pop()!]! } : undefined;
  }

  async #steps(leaseId: string, inline: boolean): Promise<Step[]> {
    if (!LEASE_ID.test(leaseId)) return [];
    await this.#handedIn.get(leaseId);
    await this.#writing.get(leaseId)?.chain;
    const dir = join(await this.root(), leaseId);
    const info = await lstat(dir).catch(() => undefined);
    if (!info?.isDirectory()) return [];
    let text: string;
    try { text = await readFile(join(dir, STEPS_FILE), 'utf8'); } catch { return []; }
    const images = new Map<string, string | undefined>();
    const steps: Step[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      let step: Step;
      try { step = JSON.parse(line) as Step; } catch { continue; }
      if (!inline) {
        if (step.screenshot !== undefined && !IMAGE_FILE.test(step.screenshot)) delete step.screenshot;
        steps.push(step);
        continue;
      }
      if (step.screenshot !== undefined) {
        const name = step.screenshot;
        if (!images.has(name)) images.set(name, IMAGE_FILE.test(name) ? await dataUrl(join(dir, name), name) : undefined);
        const url = images.get(name);
        if (url) step.screenshot = url;
        else delete step.screenshot;
      }
      steps.push(step);
    }
    // In number order: processes sharing the lease's numbering append in the order they finish.
    return steps.sort((a, b) => a.seq - b.seq);
  }

  /** Delete lease folders untouched for keepHours; resolves to how many went. */
  async sweep(now = Date.now()): Promise<number> {
    const root = await this.root();
    const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
    const cutoff = now - this.#options.keepHours * 3600 * 1000;
    let removed = 0;
    for (const e of entries) {
      // Only folders named like a lease id: never a symlink, never anything an operator put there.
      if (!e.isDirectory() || !LEASE_ID.test(e.name)) continue;
      const dir = join(root, e.name);
      const touched = Math.max(...await Promise.all([dir, join(dir, STEPS_FILE)].map((p) => stat(p).then((s) => s.mtimeMs, () => 0))));
      if (touched >= cutoff || this.#writing.has(e.name) || await this.#options.session(e.name).catch(() => undefined)) continue;
      await rm(dir, { recursive: true, force: true }).then(() => { removed++; }, (err: Error) => log('warn', 'recording sweep could not delete a folder', { dir, error: err.message }));
    }
    if (removed) log('info', 'old recordings deleted', { removed, keep_hours: this.#options.keepHours });
    return removed;
  }

  /** Sweep now and hourly (the timer does not keep the process alive). */
  start(): void {
    if (!this.enabled || this.#sweeper) return;
    const run = () => void this.sweep().catch((err: Error) => log('warn', 'recording sweep failed', { error: err.message }));
    run();
    this.#sweeper = setInterval(run, SWEEP_MS);
    this.#sweeper.unref();
  }

  stop(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  /** Wait (at most `ms`) for every queued step to be written: at shutdown, nothing is cut mid-write. */
  async flush(ms = END_WAIT_MS): Promise<void> {
    await bounded(Promise.all([...this.#handedIn.values()]).then(() => Promise.all([...this.#writing.values()].map((r) => r.chain))), ms);
  }

  /**
   * The recording a step of lease `id` goes to: the one still writing for it, else its session's,
   * else (`sessionless`) one of its own — undefined when the lease has no session here and the
   * step may not go without one.
   */
  async #recording(id: string, sessionless: boolean): Promise<LeaseRecording | undefined> {
    const session = await this.#options.session(id).catch(() => undefined);
    const writing = this.#writing.get(id);
    if (writing) return writing;
    if (session) {
      try { return session.state(this.#kept); } catch { /* the session is ending: its steps are written; this one goes alone */ }
    }
    if (!sessionless && !session) return undefined;
    // Known by id at once: a step looked up before this one is queued joins it.
    const own = newRecording(id);
    this.#writing.set(id, own);
    return own;
  }

  /** `whole`: `image` is the agent's screenshot of the whole screen, which can be a waiting group's frame. */
  #enqueue(rec: LeaseRecording, step: NewStep, image: Image | 'capture' | undefined, whole = false): void {
    const id = rec.id;
    if (image === 'capture') {
      const ended = Date.parse(step.at) + step.duration_ms;
      if (rec.waiting) { rec.waiting.steps.push(step); rec.waiting.ended = Math.max(rec.waiting.ended, ended); return; }
      const group: Waiting = { steps: [step], ended };
      rec.waiting = group;
      this.#then(id, rec, async () => {
        // At most one frame per CAPTURE_GAP_MS per lease: a burst of input shares one, and the
        // frame's encode (~20 ms of CPU) stays off the agent's next action (click p50 3.8 ms
        // with it, 8.3 ms with a capture per click in a tight loop: bench/RESULTS.md, concurrent).
        const wait = Math.max((rec.capturedAt ?? 0) + CAPTURE_GAP_MS, ended + CAPTURE_SETTLE_MS) - Date.now();
        if (wait > 0) await sleep(wait);
        if (rec.waiting === group) rec.waiting = undefined;
        let frame = group.image;
        if (!frame) {
          rec.capturedAt = Date.now();
          const png = rec.images && !rec.stopped ? await this.#options.capture(id).catch(() => undefined) : undefined;
          if (png) frame = { data: png, ext: 'png' };
        }
        await this.#write(id, rec, group.steps, frame);
      });
      return;
    }
    // A step without a capture closes the waiting group: a later input step must not jump it.
    // The agent's whole-screen screenshot, begun after those inputs ended, is their frame.
    if (rec.waiting && whole && image && step.outcome === 'ok' && Date.parse(step.at) >= rec.waiting.ended) rec.waiting.image = image;
    rec.waiting = undefined;
    this.#then(id, rec, () => this.#write(id, rec, [step], image));
  }

  #then(id: string, rec: LeaseRecording, job: () => Promise<void>): void {
    this.#writing.set(id, rec);
    const chain: Promise<void> = rec.chain.then(job).catch((err: Error) => log('warn', 'recording a step failed', { lease: id, error: err.message })).then(() => {
      // Idle: no longer known by id (its session keeps it, if it has one; a later step re-reads the folder otherwise).
      if (rec.chain === chain && !rec.waiting && this.#writing.get(id) === rec) this.#writing.delete(id);
    });
    rec.chain = chain;
  }

  async #write(id: string, rec: LeaseRecording, steps: NewStep[], image: Image | undefined): Promise<void> {
    if (rec.stopped) return;
    const dir = join(await this.root(), id);
    // Once per lease in this process: the folder, and where an earlier process left its numbering.
    if (rec.seq === undefined) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const text = await readFile(join(dir, STEPS_FILE), 'utf8').catch(() => '');
      rec.seq = text.split('\n').filter(Boolean).length;
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (IMAGE_FILE.test(name)) rec.bytes += await stat(join(dir, name)).then((s) => s.size, () => 0);
      }
    }
    // A frame byte-identical to the image written last (nothing on the screen moved) names its file.
    if (image && image.name === undefined && rec.lastImage?.ext === image.ext && rec.lastImage.data.equals(image.data)) image.name = rec.lastImage.name;
    // The lines, numbered on from this process's last number; then renumbered with the numbers
    // taken (shared by every process writing the lease's recording), before any file is named.
    let seq = rec.seq;
    const lines: Step[] = [];
    /** The lines that show the batch's image. */
    const shown: Step[] = [];
    for (const s of steps) {
      if (seq >= MAX_STEPS) {
        lines.push({ seq: ++seq, at: new Date().toISOString(), actor: 'agent', tool: 'recording', outcome: 'ok', duration_ms: 0, args: {}, note: `recording stopped: this lease reached ${MAX_STEPS} steps` });
        rec.stopped = true;
        break;
      }
      const line: Step = { seq: ++seq, ...s };
      lines.push(line);
      if (image && rec.images && seq <= MAX_IMAGE_STEPS && (image.name !== undefined || shown.length > 0 || rec.bytes + image.data.length <= MAX_IMAGE_BYTES)) {
        shown.push(line);
      } else if (image && rec.images) {
        rec.images = false;
        lines.push({ seq: ++seq, at: new Date().toISOString(), actor: s.actor, tool: 'recording', outcome: 'ok', duration_ms: 0, args: {}, note: `recording keeps no more images: this lease reached ${MAX_IMAGE_STEPS} steps or ${MAX_IMAGE_BYTES / 1048576} MB of images` });
      }
    }
    if (lines.length === 0) return;
    const last = this.#options.number ? await this.#options.number(id, lines.length, rec.seq) : seq;
    for (const l of lines) l.seq += last - seq;
    rec.seq = last;
    if (image && shown.length > 0) {
      if (image.name === undefined) {
        // A new file, named by the first step that shows it.
        const name = `${String(shown[0]!.seq).padStart(4, '0')}.${image.ext}`;
        await writeFile(join(dir, name), image.data, { mode: 0o600 });
        rec.bytes += image.data.length;
        image.name = name;
        rec.lastImage = image;
      }
      for (const l of shown) l.screenshot = image.name;
    }
    await appendFile(join(dir, STEPS_FILE), lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { mode: 0o600 });
  }
}

function newRecording(id: string): LeaseRecording {
  return { id, bytes: 0, images: true, stopped: false, chain: Promise.resolve() };
}

/** `p`, or nothing after `ms` (the timer does not keep the process alive). */
async function bounded(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const wait = new Promise<void>((resolve) => { timer = setTimeout(resolve, ms); timer.unref(); });
  await Promise.race([p.then(() => undefined), wait]);
  clearTimeout(timer);
}

async function dataUrl(file: string, name: string): Promise<string | undefined> {
  const info = await lstat(file).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const data = await readFile(file).catch(() => undefined);
  return data ? `data:${MIME[name.split('.').pop()!]};base64,${data.toString('base64')}` : undefined;
}
