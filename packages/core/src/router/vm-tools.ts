/**
 * Handlers of the VM-bound tools: each gets a bound lease (adapter + context) and validated
 * input, calls the adapter method for its capability, and returns structured output.
 */
import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { VmhubError } from '../errors.ts';
import { resolveGuestPath } from '../paths.ts';
import { decodeRegion, passThrough, shapePixels, type Region, type RegionPixels, type ShapedScreenshot } from '../screenshot.ts';
import type { ToolInput, ToolName } from '../tools.ts';
import { checkRegion, toScreen } from './coordinates.ts';
import type { DetachedJobs } from './jobs.ts';
import type { ExecResult } from '../channel.ts';
import { DEFAULT_MAX_RESULT_BYTES } from './budget.ts';
import type { LeaseBinding, ToolHost } from './types.ts';
import type { InspectRequest, InspectResult, OpenSession } from '../adapter.ts';
import { posixShellArgv } from '../define.ts';
import { runBatch, type Precheck } from './batch.ts';
import { centre, matchesOf, nearestTexts, ocrEngine, readWords, shownMatch } from './find-text.ts';
import { baselineOf, changedBox } from './changes.ts';
import { frameDigest, captureFrame } from './frame.ts';
import { detectMarks, marksInImage, marksOverlay } from './marks.ts';
import { refBox, withRefs } from './refs.ts';
import { windowPoint } from './window-point.ts';
import { checkWait, waitFor } from './wait.ts';
import { humanChars, typeHuman } from './cadence.ts';

export interface VmToolOutput {
  structured: Record<string, unknown>;
  content?: CallToolResult['content'];
}

export type BoundLease = Omit<LeaseBinding, 'session'> & { session: OpenSession };
type Handler<N extends ToolName> = (b: BoundLease, input: ToolInput<N>, env: { host: ToolHost }) => Promise<VmToolOutput>;

const at = (b: BoundLease, point: { x: number; y: number }, space: 'image' | 'screen' | undefined, field: string) => toScreen(b.screen, b.session, b.context, point, space, field);

const HOME_FALLBACK = '/root';
async function guestPath(b: BoundLease, path: string, field = 'path'): Promise<string> {
  let home = HOME_FALLBACK;
  try { home = (await b.context.channel()).home ?? home; } catch { /* console-only machines: absolute paths still work */ }
  return resolveGuestPath(path, home, field);
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const execOutput = (r: ExecResult) => ({ exit_code: r.exit_code, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), timed_out: r.timed_out, truncated: r.truncated });

function jobsOf(b: BoundLease): DetachedJobs {
  if (!b.jobs) throw new VmhubError('CAPABILITY_UNAVAILABLE', 'this server keeps no detached commands for the lease', { hint: 'Run the command without detach.' });
  return b.jobs;
}

/** Bytes a string takes inside a JSON message (escapes included). */
const jsonLength = (text: string) => Buffer.byteLength(JSON.stringify(text));
/** File content gets the result budget less room for the envelope and the text twin's summary. */
const fileBudget = (maxResultBytes: number) => Math.max(1024, maxResultBytes - 64 * 1024);
const utf8Exact = (data: Buffer) => { const s = data.toString('utf8'); return Buffer.from(s, 'utf8').equals(data) && !s.includes('\0') ? s : undefined; };

/** vm_key {action: "down" | "up"}: the session, when its adapter declares key_hold; else CAPABILITY_UNAVAILABLE (nothing pressed). */
function holdingSession(b: BoundLease): OpenSession {
  const adapter = b.adapter;
  if (!adapter?.capabilities.includes('key_hold') || !b.session.keyHold) {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `vm_key: adapter "${adapter?.id}" (template ${b.template.id}) cannot hold keys (it does not provide "key_hold"); nothing was pressed`, {
      ...(adapter ? { source: `adapter-${adapter.id}` } : {}), details: { adapter: adapter?.id, capability: 'key_hold' },
      hint: 'Use vm_key without action, or vm_click {modifiers} for a shift- or ctrl-click.',
    });
  }
  return b.session;
}

/** The longest prefix of `text` whose JSON form stays within `bytes`, cut at a code point. */
function clipUtf8(text: string, bytes: number): string {
  if (jsonLength(text) <= bytes) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) { const mid = Math.ceil((lo + hi) / 2); if (jsonLength(text.slice(0, mid)) <= bytes) lo = mid; else hi = mid - 1; }
  const cut = lo > 0 && /[\uD800-\uDBFF]/.test(text[lo - 1]!) ? lo - 1 : lo;
  return text.slice(0, cut);
}

type ClickInput = ToolInput<'vm_click'>;
const MARKS_FIRST = 'call vm_screenshot {marks: true} first, then click one of the ids it returns';

/** Exactly one target: a point, a text, a mark or an element ref. */
function clickForm(input: ClickInput): 'point' | 'text' | 'mark' | 'ref' {
  const point = input.x !== undefined || input.y !== undefined;
  const forms = [point && 'point', input.text !== undefined && 'text', input.mark !== undefined && 'mark', input.ref !== undefined && 'ref'].filter(Boolean) as ('point' | 'text' | 'mark' | 'ref')[];
  if (forms.length !== 1) throw new VmhubError('INVALID_REQUEST', forms.length ? `vm_click takes one target, got ${forms.join(' and ')}: give x and y, or text (with index), or mark, or ref` : 'vm_click needs a target: x and y, or text (with index), or mark, or ref');
  if (point && (input.x === undefined || input.y === undefined)) throw new VmhubError('INVALID_REQUEST', `vm_click needs both x and y (got only ${input.x === undefined ? 'y' : 'x'})`);
  if (input.index !== undefined && forms[0] !== 'text') throw new VmhubError('INVALID_REQUEST', 'index picks among text matches: give it with text');
  if (input.window !== undefined && input.coordinate_space !== undefined) throw new VmhubError('INVALID_REQUEST', 'vm_click {window}: x and y are that window\'s client pixels, so coordinate_space does not apply: give one or the other');
  return forms[0]!;
}

function markOf(b: BoundLease, id: number) {
  const marks = b.screen.marks;
  if (!marks?.length) throw new VmhubError('INVALID_REQUEST', `mark ${id}: this lease has no marks yet; ${MARKS_FIRST}`);
  const mark = marks.find((m) => m.id === id);
  if (!mark) throw new VmhubError('INVALID_REQUEST', `mark ${id} is not among the latest marks (1..${marks.length}); ${MARKS_FIRST}`);
  return mark;
}

/** The centre of the element `ref` names (router/refs.ts), in screen pixels, and its name. */
function refPoint(b: BoundLease, ref: string): { x: number; y: number; text?: string } {
  const box = refBox(b.screen, ref);
  return { ...centre(box, b.screen.latest?.screen ?? { width: Infinity, height: Infinity }), ...(box.name !== undefined ? { text: box.name } : {}) };
}

/** Where a click lands, in screen pixels, and the text it targets. */
async function clickTarget(b: BoundLease, input: ClickInput, host: ToolHost): Promise<{ x: number; y: number; text?: string }> {
  const form = clickForm(input);
  if (form === 'point' && input.window !== undefined) return at(b, await windowPoint(b.session, b.context, input.window, { x: input.x!, y: input.y! }), 'screen', 'window point');
  if (form === 'point') return at(b, { x: input.x!, y: input.y! }, input.coordinate_space, 'click point');
  if (form === 'ref') return refPoint(b, input.ref!);
  if (form === 'mark') {
    const mark = markOf(b, input.mark!);
    return { ...centre(mark, b.screen.latest?.screen ?? { width: Infinity, height: Infinity }), text: mark.text };
  }
  const engine = await ocrEngine(host, 'vm_click {text}');
  const frame = await captureFrame(b);
  const words = await readWords(engine, frame, b.context.signal);
  const matches = matchesOf(words, input.text!);
  const index = input.index ?? 0;
  const match = matches[index];
  if (!match) {
    if (matches.length) throw new VmhubError('NOT_FOUND', `vm_click: "${input.text}" matches ${matches.length} place(s) on the screen, so index ${index} is out of range (0..${matches.length - 1})`, { hint: 'Use a smaller index, or vm_find_text to list the matches.' });
    const near = nearestTexts(words, input.text!);
    throw new VmhubError('NOT_FOUND', `vm_click: no text matching "${input.text}" on the screen (OCR); ${near.length ? `nearest seen: ${near.map((t) => JSON.stringify(t)).join(', ')}` : 'OCR read no text there'}`, { hint: 'Check the spelling against what is shown, wait for it with vm_wait {for: "text"}, or click by coordinates or mark.', details: { nearest: near } });
  }
  return { ...centre(match, frame.screen), text: match.text };
}

/** After the focusing click of vm_type {ref}: the screen quiet this long, or at most FOCUS_WAIT_S. */
const FOCUS_SETTLE_MS = 150;
const FOCUS_WAIT_S = 2;

/**
 * vm_type {ref}: click the element first, so the text goes where the agent pointed, then wait
 * until the screen settles — the application has drawn the focus (caret, ring) — before typing:
 * focus moves asynchronously in many applications (Firefox hands it to its content process), and
 * keys sent at once could still reach the field focused before.
 */
async function clickRef(b: BoundLease, ref: string, host: ToolHost): Promise<void> {
  const point = refPoint(b, ref);
  if (!b.session.click) throw new VmhubError('CAPABILITY_UNAVAILABLE', `vm_type {ref}: this lease's adapter cannot click to focus ${ref}`, { hint: 'Focus the field another way (vm_key Tab), then vm_type without ref.' });
  await b.session.click(b.context, { x: point.x, y: point.y, button: 'left', count: 1, modifiers: [] });
  if (b.session.screenshot) await waitFor(b, { for: 'settle', settle_ms: FOCUS_SETTLE_MS, timeout_seconds: FOCUS_WAIT_S }, host);
}

/** Past its own time budget an adapter has this long to answer before core answers for it. */
const INSPECT_GRACE_MS = 2_000;

/**
 * The adapter's inspect, never waited on past its budget and the grace: an adapter that overruns
 * by that much is answered for with an empty tree, truncated by time (the walk goes on unseen).
 */
async function inspectBounded(b: BoundLease, request: InspectRequest): Promise<InspectResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<InspectResult>((resolve) => {
    timer = setTimeout(() => resolve({ source: 'none', tree: { role: 'desktop' }, truncated: 'time' }), request.timeout_ms + INSPECT_GRACE_MS);
  });
  try {
    return await Promise.race([b.session.inspect!(b.context, request), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What vm_batch checks of a step before any step runs: the same checks the tool makes first. */
export const PRECHECKS: Partial<Record<ToolName, Precheck>> = {
  async vm_click(b, input, host) {
    const form = clickForm(input as ClickInput);
    const { window } = input as ClickInput;
    if (form === 'point' && window !== undefined) await windowPoint(b.session, b.context, window, input as { x: number; y: number });
    else if (form === 'point') await at(b, input as { x: number; y: number }, (input as ClickInput).coordinate_space, 'click point');
    else if (form === 'mark') markOf(b, (input as ClickInput).mark!);
    else if (form === 'ref') refBox(b.screen, (input as ClickInput).ref!);
    else await ocrEngine(host, 'vm_click {text}');
  },
  async vm_type(b, input) {
    const ref = (input as ToolInput<'vm_type'>).ref;
    if (ref !== undefined) refBox(b.screen, ref);
  },
  async vm_drag(b, input) {
    const i = input as ToolInput<'vm_drag'>;
    await at(b, i.from, i.coordinate_space, 'from');
    await at(b, i.to, i.coordinate_space, 'to');
  },
  async vm_scroll(b, input) {
    const i = input as ToolInput<'vm_scroll'>;
    await at(b, i, i.coordinate_space, 'scroll point');
  },
  async vm_wait(b, input, host) {
    const i = input as ToolInput<'vm_wait'>;
    checkWait(i);
    if (i.region) await checkRegion(b.screen, b.session, b.context, i.region);
    if (i.for === 'text') await ocrEngine(host, 'vm_wait {for: "text"}');
  },
};

/** `f`'s promise, made on the first call and kept. */
function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}

/** vm_screenshot's result; the lease keeps the image's mapping, marks and the frame's digest. */
async function screenshotReply(b: BoundLease, host: ToolHost, shot: ShapedScreenshot, digest: () => Promise<string>, region: Region = { x: 0, y: 0, ...shot.screen }, marks?: Awaited<ReturnType<typeof detectMarks>>): Promise<VmToolOutput> {
  b.screen.latest = { scale: shot.scale, origin: shot.origin, width: shot.width, height: shot.height, screen: shot.screen };
  b.screen.frame = { digest, region };
  if (marks) b.screen.marks = marks;
  const file = await host.screenshots?.save?.(b.lease_id, shot);
  const structured: Record<string, unknown> = { width: shot.width, height: shot.height, scale: Number(shot.scale.toFixed(6)), origin: shot.origin, screen: shot.screen, format: shot.format, bytes: shot.data.length };
  if (file) structured.file = file;
  if (marks) structured.marks = marksInImage(marks, b.screen.latest);
  return { structured, content: [{ type: 'image', data: shot.data.toString('base64'), mimeType: shot.mime }] };
}

export const VM_HANDLERS: { [N in ToolName]?: Handler<N> } = {
  async vm_screenshot(b, input, { host }) {
    if (input.changed_only && (input.region || input.marks)) throw new VmhubError('INVALID_REQUEST', 'vm_screenshot: changed_only picks its own region (what changed since your last full-screen screenshot of this lease); leave out region and marks');
    const raw = await b.session.screenshot!(b.context);
    const s = host.settings.screenshot;
    const shape = {
      format: input.format ?? s.format, maxWidth: input.max_width ?? s.maxWidth, maxHeight: input.max_height ?? s.maxHeight, maxBytes: s.maxBytes,
      ...(input.scale !== undefined ? { scale: input.scale } : {}),
    };
    // The capture already is the asked image (whole screen, format, box, budget; no marks, no
    // changes baseline to keep): hand it through. Its digest needs a decode, which only a later
    // vm_wait {for: "change"} asks for: decoded then, from a copy (the adapter may reuse its buffer).
    const through = input.changed_only || input.region || input.marks || b.screen.baseline ? undefined : passThrough(raw, shape);
    if (through) {
      const kept = { ...raw, data: Buffer.from(raw.data) };
      return screenshotReply(b, host, through, once(async () => frameDigest(await decodeRegion(kept))));
    }
    let px: RegionPixels;
    let changed: Region | undefined;
    if (input.changed_only) {
      const full = await decodeRegion(raw);
      changed = changedBox(b.screen.baseline, full);
      // Unchanged: the baseline already holds these pixels.
      if (changed) b.screen.baseline = baselineOf(full, b.screen.baseline);
      if (!changed) {
        // Nothing changed: no image, and the agent's latest image (and its mapping) stays valid.
        const m = b.screen.latest ?? { width: full.width, height: full.height, scale: 1, origin: { x: 0, y: 0 }, screen: full.screen };
        return { structured: { width: m.width, height: m.height, scale: Number(m.scale.toFixed(6)), origin: m.origin, screen: m.screen, format: input.format ?? host.settings.screenshot.format, bytes: 0 }, content: [{ type: 'text', text: 'unchanged: the screen is as in your last screenshot of this lease' }] };
      }
      // Cut the box from the decode we have (raw pixels crop without a second decode).
      px = full.channels === 1 ? await decodeRegion(raw, changed) : await decodeRegion({ data: full.data, format: full.channels === 4 ? 'rgba' : 'rgb', width: full.width, height: full.height }, changed);
    } else {
      px = await decodeRegion(raw, input.region);
      // Once the agent asked for changes, every full-screen screenshot it sees is the next baseline.
      if (b.screen.baseline && !input.region) b.screen.baseline = baselineOf(px, b.screen.baseline);
    }
    const marks = input.marks ? await detectMarks(b, host, px) : undefined;
    const shot = await shapePixels(px, { ...shape, ...(marks ? { overlay: (m) => marksOverlay(marks, m) } : {}) });
    const digest = new Promise<string>((resolve) => setImmediate(() => resolve(frameDigest(px))));
    return screenshotReply(b, host, shot, () => digest, px.region, marks);
  },
  async vm_wait(b, input, { host }) {
    return { structured: { ...await waitFor(b, input, host) } };
  },
  async vm_find_text(b, input, { host }) {
    const engine = await ocrEngine(host, 'vm_find_text');
    const frame = await captureFrame(b, input.region);
    const words = await readWords(engine, frame, b.context.signal);
    const matches = matchesOf(words, input.text, input.min_confidence).flatMap((m) => { const shown = shownMatch(m, b.screen.latest); return shown ? [shown] : []; });
    return { structured: { matches } };
  },
  async vm_batch(b, input, { host }) {
    return runBatch(b, input, host, VM_HANDLERS as never, PRECHECKS);
  },
  async vm_inspect(b, input) {
    const request: InspectRequest = { max_depth: input.max_depth ?? 50, scope: input.scope ?? 'window', max_nodes: input.max_nodes ?? 500, timeout_ms: Math.round((input.timeout_seconds ?? 3) * 1000) };
    const r = await inspectBounded(b, request);
    const kept = withRefs(r.tree, request.max_nodes);
    b.screen.refs = kept.refs;
    const truncated = r.truncated ?? (kept.cut ? 'nodes' : undefined);
    return { structured: { source: r.source, scope: r.scope ?? request.scope, nodes: kept.nodes, ...(truncated ? { truncated: true, reason: truncated } : {}), tree: kept.tree } };
  },
  async vm_list_windows(b, input) {
    let windows = await b.session.listWindows!(b.context);
    if (input.filter) { const f = input.filter.toLowerCase(); windows = windows.filter((w) => w.title.toLowerCase().includes(f) || w.class.toLowerCase().includes(f)); }
    return { structured: { windows } };
  },
  async vm_focus(b, input) {
    return { structured: { window: await b.session.focus!(b.context, { window: input.window }) } };
  },
  async vm_close(b, input) {
    const r = await b.session.close!(b.context, { window: input.window });
    return { structured: { closed: true, window_id: r.window_id } };
  },
  async vm_launch(b, input) {
    const r = await b.session.launch!(b.context, { app: input.app, args: input.args ?? [], wait_seconds: input.wait_seconds ?? 5 });
    return { structured: { ...(r.pid !== undefined ? { pid: r.pid } : {}), ...(r.window ? { window: r.window } : {}) } };
  },
  async vm_click(b, input, { host }) {
    const target = await clickTarget(b, input, host);
    await b.session.click!(b.context, { x: target.x, y: target.y, button: input.button ?? 'left', count: input.count ?? 1, modifiers: (input.modifiers ?? []) as ('ctrl' | 'shift' | 'alt' | 'super')[] });
    return { structured: { screen_x: target.x, screen_y: target.y, ...(target.text !== undefined ? { text: target.text } : {}) } };
  },
  async vm_type(b, input, { host }) {
    // Checked before anything is done: a text too long for human cadence types nothing.
    const human = (input as { cadence?: string }).cadence === 'human' ? humanChars(input.text) : undefined;
    if (input.ref !== undefined) await clickRef(b, input.ref, host);
    if (human) await typeHuman(human, (text) => b.session.type!(b.context, { text }), b.context.signal);
    else await b.session.type!(b.context, { text: input.text });
    return { structured: { typed: [...input.text].length } };
  },
  async vm_key(b, input) {
    const action = (input as { action?: 'press' | 'down' | 'up' }).action ?? 'press';
    if (action === 'press') await b.session.key!(b.context, { keys: input.keys });
    else await holdingSession(b).keyHold!(b.context, { keys: input.keys, action });
    return { structured: { keys: input.keys } };
  },
  async vm_paste(b, input) {
    await b.session.paste!(b.context, { text: input.text });
    return { structured: { pasted: [...input.text].length } };
  },
  async vm_get_clipboard(b, _input, { host }) {
    const { text } = await b.session.getClipboard!(b.context);
    // Bounded like vm_get_file's content: the result budget less room for the envelope.
    const kept = clipUtf8(text, fileBudget(host.settings.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES) / 2);
    return { structured: { text: kept, ...(kept.length < text.length ? { truncated: true } : {}) } };
  },
  async vm_drag(b, input) {
    const from = await at(b, input.from, input.coordinate_space, 'from');
    const to = await at(b, input.to, input.coordinate_space, 'to');
    await b.session.drag!(b.context, { from, to, button: input.button ?? 'left' });
    return { structured: {} };
  },
  async vm_scroll(b, input) {
    const p = await at(b, input, input.coordinate_space, 'scroll point');
    await b.session.scroll!(b.context, { ...p, direction: input.direction as 'up' | 'down' | 'left' | 'right', amount: input.amount ?? 3 });
    return { structured: {} };
  },
  async vm_dispatch(b, input) {
    const result = await b.session.dispatch!(b.context, { verb: input.verb, args: input.args ?? {} });
    return { structured: { verb: input.verb, result: result ?? null } };
  },
  async vm_put_file(b, input, { host }) {
    if ((input.content === undefined) === (input.content_base64 === undefined)) throw new VmhubError('INVALID_REQUEST', 'give exactly one of content (UTF-8 text) or content_base64');
    let data: Buffer;
    if (input.content !== undefined) data = Buffer.from(input.content, 'utf8');
    else {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(input.content_base64!.replace(/\s+/g, ''))) throw new VmhubError('INVALID_REQUEST', 'content_base64 is not valid base64');
      data = Buffer.from(input.content_base64!, 'base64');
    }
    if (data.length > host.settings.maxFileBytes) throw new VmhubError('INVALID_REQUEST', `file is ${data.length} bytes, over the ${host.settings.maxFileBytes}-byte limit (files.max_bytes)`);
    const path = await guestPath(b, input.path);
    await b.session.putFile!(b.context, { path, data, ...(input.mode ? { mode: parseInt(input.mode, 8) } : {}) });
    return { structured: { path, size: data.length, sha256: sha256(data) } };
  },
  async vm_get_file(b, input, { host }) {
    const path = await guestPath(b, input.path);
    const max = Math.min(input.max_bytes ?? host.settings.maxFileBytes, host.settings.maxFileBytes);
    const data = await b.session.getFile!(b.context, { path, max_bytes: max });
    if (data.length > max) throw new VmhubError('INVALID_REQUEST', `${path} is ${data.length} bytes, over max_bytes ${max}`);
    const offset = Math.min(input.offset ?? 0, data.length);
    const part = data.subarray(offset, input.length === undefined ? data.length : Math.min(data.length, offset + input.length));
    const text = utf8Exact(part);
    const budget = fileBudget(host.settings.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES);
    const encoded = text !== undefined ? jsonLength(text) : Math.ceil(part.length / 3) * 4;
    if (encoded > budget) {
      const step = Math.floor(budget * 3 / 4 / 6) * 6;
      throw new VmhubError('RESULT_TOO_LARGE', `${path}: ${part.length} bytes from offset ${offset} encode to ${encoded} bytes, over this server's ${budget}-byte budget for file content in one result`, { hint: `Read it in parts: vm_get_file {path, offset: ${offset}, length: ${step}}, then offset ${offset + step}, … until eof is true.`, details: { size: data.length, offset, budget, length: step } });
    }
    return { structured: { path, size: data.length, sha256: sha256(data), offset, length: part.length, eof: offset + part.length >= data.length, ...(text !== undefined ? { content: text } : { content_base64: part.toString('base64') }) } };
  },
  async vm_clone_repo(b, input, { host }) {
    if (!host.clone) throw new VmhubError('CAPABILITY_UNAVAILABLE', 'this server has no host-side git configured for vm_clone_repo');
    const name = input.url.replace(/\/+$/, '').split(/[/:]/).pop()!.replace(/\.git$/, '') || 'repo';
    const dest = await guestPath(b, input.dest ?? name, 'dest');
    // Refused before anything is minted: the token would have nowhere to go.
    if (input.push && !b.session.installGitCredential) throw new VmhubError('CAPABILITY_UNAVAILABLE', `the ${b.adapter?.id ?? 'lease\'s'} adapter cannot install a git credential in its machine, which vm_clone_repo {push: true} needs`, { hint: 'Clone without push (the clone works, pushing from the machine does not), or use a template whose adapter installs git credentials (x11, hyprland).' });
    const clone = await host.clone.onHost(input, b.template, dest);
    let outcome: 'ok' | 'failed' = 'failed';
    try {
      await b.session.cloneRepo!(b.context, { dest, archive: clone.archive });
      if (clone.credential) await b.session.installGitCredential!(b.context, { repo: dest, ...clone.credential });
      outcome = 'ok';
    } finally {
      await clone.cleanup(outcome);
    }
    return { structured: { dest, commit: clone.commit, ...(clone.ref ? { ref: clone.ref } : {}), files: clone.files } };
  },
  async vm_exec(b, input) {
    if (input.job !== undefined) {
      if (input.command !== undefined || input.shell !== undefined || input.detach) throw new VmhubError('INVALID_REQUEST', 'job reads a detached command: give it alone (with lease_id)');
      const job = await jobsOf(b).get(input.job);
      if (job.running) return { structured: { job: input.job, running: true } };
      if (job.error) throw job.error;
      return { structured: { job: input.job, running: false, ...execOutput(job.result!) } };
    }
    if ((input.command === undefined) === (input.shell === undefined)) throw new VmhubError('INVALID_REQUEST', 'give exactly one of command (argv array) or shell (a string run by the machine\'s shell: sh; PowerShell on Windows)');
    // The adapter says what its machine's shell is (AdapterSession.shellArgv); POSIX sh otherwise.
    const argv = input.command ?? (b.session.shellArgv ? b.session.shellArgv(input.shell!) : posixShellArgv(input.shell!));
    const cwd = input.cwd !== undefined ? await guestPath(b, input.cwd, 'cwd') : undefined;
    const exec = { argv, ...(cwd ? { cwd } : {}), ...(input.stdin !== undefined ? { stdin: input.stdin } : {}), timeout_ms: Math.round((input.timeout_seconds ?? 30) * 1000), max_output_bytes: 256 * 1024 };
    if (input.detach) {
      // Runs on after this call returns: under the lease's signal, not the call's deadline.
      const job = await jobsOf(b).start((signal) => b.session.exec!({ ...b.context, signal }, exec));
      return { structured: { job, running: true } };
    }
    return { structured: execOutput(await b.session.exec!(b.context, exec)) };
  },
};
