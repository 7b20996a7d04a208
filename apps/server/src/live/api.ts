/**
 * The live view's JSON API under /api/ (docs/live-view.md): the principal's leases, a lease's
 * screen, events and recording, renew and release, take-over, the person's input and hand-back.
 * The caller is already authenticated (http.ts); here every lease id is checked against the
 * principal first — another principal's lease is as unknown as one that never existed. The one
 * widening: the principal of http.local_leases_dashboard also sees the local OS user's leases
 * (those of stdio clients), as if they were its own (Live.viewers).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { asVmhubError, assertValid, LIVE_LEASE_STATES, Type, VmhubError, type Capability, type LeaseInfo } from '@vmhub/core';
import { boundFor, type BoundLease, type LeaseBinding, type PersonInputTool, type Router } from '@vmhub/core/router';
import type { LeaseRow } from '@vmhub/store';
import { readBody } from '../http/body.ts';
import { frameGeneration, frameTag } from './frame-generation.ts';
import { liveImage } from './screen.ts';
import { leaseView } from '../leases/view.ts';
import type { Runtime } from '../runtime.ts';
import { controlView, MAX_NOTE } from './control.ts';
import { pointerOf, type PointerMark } from './pointer.ts';
import { LEASE_ID, type Recordings } from './recorder.ts';
import { recordingHtml } from './recording-html.ts';
import { streamStats } from './stream-state.ts';
import { exportRecording, isExportFormat } from './recording-export.ts';

export interface Live {
  runtime(): Promise<Runtime>;
  recordings: Recordings;
  /** The principals whose leases this principal's live view shows (itself first). */
  viewers(principal: string): readonly string[];
  /** A person's take-over input, through the agent's tools (Router.personInput). */
  input: Router['personInput'];
}

const MAX_BODY = 256 * 1024;
/** Ended leases stay in the list this long. */
const ENDED_SHOWN_MS = 60 * 60 * 1000;
/** A live-view call on the machine (a capture, one input) gets this long. */
const CALL_MS = 30_000;
const ROUTE = /^\/api\/leases(?:\/([^/]*)(?:\/([a-z]+))?)?\/?$/;

/** An answer of the API that is not a VmhubError code (401/403/405, NOT_IN_CONTROL). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly hint: string | undefined;
  constructor(status: number, code: string, message: string, hint?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint;
  }
}

const STATUS: Record<string, number> = {
  INVALID_REQUEST: 400, NOT_FOUND: 404, LEASE_NOT_READY: 409, LEASE_EXPIRED: 409, CAPABILITY_UNAVAILABLE: 409, MACHINE_LOST: 409,
  PROVISION_FAILED: 409, BOOT_TIMEOUT: 409, HUMAN_CONTROL: 409, POLICY_DENIED: 403, TIMEOUT: 504, LOCK_CONTENTION: 409,
};

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' }).end(JSON.stringify(body));
}

/** How the live API answers `err`: its HTTP status and the `error` body (the stream's refusals and input answers too). */
export function apiError(err: unknown): { status: number; error: { code: string; message: string; hint?: string } } {
  if (err instanceof ApiError) return { status: err.status, error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) } };
  const e = asVmhubError(err, 'live-api');
  return { status: STATUS[e.code] ?? 500, error: { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } };
}

export function sendError(res: ServerResponse, err: unknown): void {
  const { status, error } = apiError(err);
  sendJson(res, status, { error });
}

/** A frame width the live view takes (?max_width= of /screen and the stream): an integer 16..4096. */
export function assertFrameWidth(width: unknown): number {
  if (typeof width !== 'number' || !Number.isInteger(width) || width < 16 || width > 4096) throw new ApiError(400, 'INVALID_REQUEST', 'max_width must be an integer 16..4096');
  return width;
}

export async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, principal: string, live: Live | undefined): Promise<void> {
  try {
    const m = ROUTE.exec(url.pathname);
    if (!m || !live) throw new ApiError(404, 'NOT_FOUND', `no API route ${url.pathname}: see docs/live-view.md (GET /api/leases, /api/leases/{id}[/screen|/events|/recording|/pointer|/clipboard], POST …/renew|release|takeover|handback|input)`);
    const [, id, action] = m;
    const rt = await live.runtime();
    if (id === undefined || id === '') {
      only(req, 'GET');
      return sendJson(res, 200, { leases: await listLeases(rt, live.viewers(principal)) });
    }
    // Checked before anything reads the store or the disk with it.
    if (!LEASE_ID.test(id)) throw new ApiError(400, 'INVALID_REQUEST', `"${id.slice(0, 64)}" is not a lease id (36 characters of 0-9, a-f and -)`);
    const row = await ownLease(rt, id, live.viewers(principal));
    const api = new LeaseApi(rt, live, row, principal);
    switch (action) {
      case undefined: only(req, 'GET'); return sendJson(res, 200, await api.detail());
      case 'screen': only(req, 'GET'); return await api.screen(res, url);
      case 'events': only(req, 'GET'); return sendJson(res, 200, await api.events());
      case 'recording': only(req, 'GET'); return await api.recording(res, url);
      case 'pointer': only(req, 'GET'); return sendJson(res, 200, await api.pointer());
      case 'clipboard': only(req, 'GET'); return sendJson(res, 200, await api.clipboard());
      case 'renew': case 'release': case 'takeover': case 'handback': case 'input': {
        only(req, 'POST');
        const read = await readBody(req, MAX_BODY);
        if (!read.ok) throw new ApiError(read.status, 'INVALID_REQUEST', read.status === 413 ? `request body over ${MAX_BODY} bytes` : read.message);
        const body = read.value ?? {};
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError(400, 'INVALID_REQUEST', 'the request body must be a JSON object');
        return sendJson(res, 200, await api[action](body as Record<string, unknown>));
      }
      default: throw new ApiError(404, 'NOT_FOUND', `no API route ${url.pathname}`);
    }
  } catch (err) {
    if (!res.headersSent) sendError(res, err);
    else res.destroy();
  }
}

function only(req: IncomingMessage, method: 'GET' | 'POST'): void {
  if (req.method === method || (method === 'GET' && req.method === 'HEAD')) return;
  throw new ApiError(405, 'INVALID_REQUEST', `${req.method} is not allowed here: use ${method}`);
}

async function listLeases(rt: Runtime, principals: readonly string[]): Promise<unknown[]> {
  const lists = await Promise.all(principals.map(async (principal) => (await rt.leases.list({ principal }, 200)).leases));
  const since = Date.now() - ENDED_SHOWN_MS;
  const leases = lists.flat()
    .filter((row) => LIVE_LEASE_STATES.includes(row.status as never) || row.updated_at >= since)
    .sort((a, b) => b.created_at - a.created_at)
    .slice(0, 200);
  const controls = await rt.store.leaseControls(leases.map((row) => row.id));
  return leases.map((row) => ({ ...leaseView(row), ...controlView(row, controls.get(row.id)) }));
}

/** The lease `id` if one of `principals` owns it, else 404 (the stream's upgrade checks with it). */
export const ownLeaseFor = (rt: Runtime, id: string, principals: readonly string[]): Promise<LeaseRow> => ownLease(rt, id, principals);

/** A person's input on lease `id` as POST …/input takes it (the stream's input messages). */
export async function leaseInput(live: Live, principal: string, id: string, body: Record<string, unknown>): Promise<unknown> {
  const rt = await live.runtime();
  const row = await ownLease(rt, id, live.viewers(principal));
  return new LeaseApi(rt, live, row, principal).input(body);
}

async function ownLease(rt: Runtime, id: string, principals: readonly string[]): Promise<LeaseRow> {
  // The same ownership rule as every MCP tool (LeaseManager.get): another principal's lease is
  // NOT_FOUND; the live view of the mapped principal also owns the local user's (Live.viewers).
  for (const principal of principals) {
    try {
      return await rt.leases.get(id, principal);
    } catch (err) {
      if (!VmhubError.is(err) || err.code !== 'NOT_FOUND') throw err;
    }
  }
  throw notFound(id);
}

const notFound = (id: string) => new ApiError(404, 'NOT_FOUND', `no lease "${id}" of yours`, 'GET /api/leases lists the leases of this token\'s principal.');

/** Adapter verbs the live view uses when the lease's adapter has them (vm_dispatch's). */
const VERB_MOUSE = 'mouse_location';
const VERB_CLIPBOARD = 'get_clipboard';
/** A pointer question gets this long: the dot is drawn from what the server knows otherwise. */
const POINTER_MS = 3000;
/**
 * The agent's tool each kind of the person's input goes through (Router.personInput): the body
 * is `type` plus that tool's arguments (docs/live-view.md), checked once, by the tool's schema.
 */
const INPUT_TOOL = { click: 'vm_click', type: 'vm_type', key: 'vm_key', scroll: 'vm_scroll', drag: 'vm_drag', paste: 'vm_paste' } as const satisfies Record<string, PersonInputTool>;
type InputKind = keyof typeof INPUT_TOOL;
/** The live view points at screen pixels. */
const POINTS = new Set<InputKind>(['click', 'scroll', 'drag']);

class LeaseApi {
  readonly #rt: Runtime;
  readonly #live: Live;
  readonly #row: LeaseRow;
  /** Who is calling: the person who takes over. */
  readonly #principal: string;

  constructor(rt: Runtime, live: Live, row: LeaseRow, principal: string) {
    this.#rt = rt;
    this.#live = live;
    this.#row = row;
    this.#principal = principal;
  }

  get #id(): string { return this.#row.id; }

  /** Read from the store each time: a take-over made elsewhere (another tab, the API, another server) shows. */
  async detail(): Promise<LeaseInfo & Record<string, unknown>> {
    const c = (await this.#rt.store.leaseControls([this.#id])).get(this.#id);
    const stream = streamStats(this.#rt.sessions.get(this.#id));
    return { ...leaseView(this.#row), ...controlView(this.#row, c), stream: stream ?? { viewers: 0, capturing: false, captures: 0, frames_sent: 0 } };
  }

  /** The lease's binding (its session opened if need be): throws LEASE_NOT_READY, LEASE_EXPIRED… as the tools do. */
  async #binding(): Promise<LeaseBinding> {
    return this.#rt.sessions.bind(this.#id, AbortSignal.timeout(CALL_MS), this.#row.principal ?? undefined);
  }

  /** The lease's bound session, through the router's capability gate (`capability` undefined: the adapter loaded). */
  async #bind(capability?: Capability): Promise<BoundLease> {
    return boundFor(`lease ${this.#id}`, capability, await this.#binding());
  }

  async screen(res: ServerResponse, url: URL): Promise<void> {
    const format = url.searchParams.get('format') === 'jpeg' ? 'jpeg' : 'png';
    const asked = Number(url.searchParams.get('max_width') ?? 1280);
    assertFrameWidth(asked);
    const since = url.searchParams.get('since');
    const b = await this.#bind('screenshot');
    // The agent's own mapping (b.screen.latest) is not touched: its coordinates stay its own.
    const raw = await b.session.screenshot!(b.context);
    // ?since=<X-Frame of the image the viewer shows>: unchanged → 204, nothing encoded or sent.
    const owner = this.#rt.sessions.get(this.#id);
    if (!owner) throw new ApiError(409, 'LEASE_EXPIRED', `lease ${this.#id} ended while its screen was read`);
    const tag = frameTag(frameGeneration(owner, raw), format, asked);
    if (since === tag) {
      res.writeHead(204, { 'Cache-Control': 'no-store', 'X-Frame': tag }).end();
      return;
    }
    const shot = await liveImage(raw, format, asked);
    res.writeHead(200, {
      'Content-Type': shot.mime, 'Cache-Control': 'no-store', 'Content-Length': shot.data.length, 'X-Frame': tag,
      'X-Screen-Width': String(shot.screen.width), 'X-Screen-Height': String(shot.screen.height), 'X-Image-Scale': String(Number(shot.scale.toFixed(6))),
    }).end(shot.data);
  }

  async events(): Promise<unknown> {
    const rows = await this.#rt.store.listEvents({ lease_id: this.#id, limit: 1000 });
    return { events: rows.map((e) => ({ at: new Date(e.at).toISOString(), kind: e.kind, detail: parse(e.data) })) };
  }

  async recording(res: ServerResponse, url: URL): Promise<void> {
    // ?since=<seq>: only the steps after it, so a page polling the timeline does not fetch every image again.
    const since = Number(url.searchParams.get('since') ?? -1);
    if (!Number.isInteger(since) || since < -1) throw new ApiError(400, 'INVALID_REQUEST', `since must be a step's seq (an integer ≥ 0), not "${url.searchParams.get('since')}"`);
    const format = url.searchParams.get('format') ?? 'json';
    if (format !== 'json' && format !== 'html' && !isExportFormat(format)) throw new ApiError(400, 'INVALID_REQUEST', `format must be json, html, atif or hf, not "${format.slice(0, 32)}"`);
    if (isExportFormat(format) && url.searchParams.has('since')) throw new ApiError(400, 'INVALID_REQUEST', `since is for the JSON timeline: format=${format} exports every step`);
    const lease = leaseView(this.#row);
    if (isExportFormat(format)) {
      // ?format=atif|hf: an ATIF v1.6 JSON document or a Hugging Face datasets folder in a tar (recording-export.ts).
      const file = await exportRecording(format, lease, this.#live.recordings);
      res.writeHead(200, { 'Content-Type': file.contentType, 'Cache-Control': 'no-store', 'Content-Length': file.body.length, 'Content-Disposition': `attachment; filename="${file.filename}"` }).end(file.body);
      return;
    }
    const steps = (await this.#live.recordings.read(this.#id)).filter((s) => s.seq > since);
    if (format === 'html') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Disposition': `attachment; filename="vmhub-${this.#id.slice(0, 8)}-recording.html"` }).end(recordingHtml(lease, steps));
      return;
    }
    sendJson(res, 200, { lease, steps });
  }

  async renew(body: Record<string, unknown>): Promise<LeaseInfo> {
    const input = assertValid<{ ttl_seconds?: number }>(Type.Object({ ttl_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400 })) }, { additionalProperties: false }), body, 'renew body');
    return this.#rt.leases.renew({ lease_id: this.#id, ...(input.ttl_seconds !== undefined ? { ttl_seconds: input.ttl_seconds } : {}) }, this.#row.principal ?? undefined);
  }

  async release(body: Record<string, unknown>): Promise<LeaseInfo> {
    assertValid(Type.Object({}, { additionalProperties: false }), body, 'release body');
    return this.#rt.leases.release({ lease_id: this.#id }, this.#row.principal ?? undefined);
  }

  async takeover(body: Record<string, unknown>): Promise<unknown> {
    // allow_commands_and_files: the agent's vm_exec, vm_put_file and vm_clone_repo run while the
    // person holds the lease (default false: they answer HUMAN_CONTROL like the input tools).
    const input = assertValid<{ allow_commands_and_files?: boolean }>(Type.Object({ allow_commands_and_files: Type.Optional(Type.Boolean()) }, { additionalProperties: false }), body, 'takeover body');
    // A lease that is not ready (or has ended) answers as the tools do.
    const b = await this.#bind();
    const allow = input.allow_commands_and_files === true;
    const { since, changed, allowChanged } = await this.#rt.store.takeover(this.#id, this.#principal, { allowCommandsAndFiles: allow });
    // Keys the agent holds (vm_key {action: "down"}) must not reach the person's typing: the
    // adapter releases every key and button the machine holds (adapter-x11: release-input.ts),
    // whichever process pressed them. Once, when the person takes control; best effort.
    if (changed && b.session.releaseHeld) await b.session.releaseHeld(b.context).catch(() => undefined);
    if (changed || allowChanged) this.#live.recordings.human(this.#id, this.#row.principal, 'takeover', { allow_commands_and_files: allow });
    return { control: 'human', control_since: new Date(since).toISOString(), allow_commands_and_files: allow };
  }

  async handback(body: Record<string, unknown>): Promise<unknown> {
    const input = assertValid<{ note?: string }>(Type.Object({ note: Type.Optional(Type.String({ maxLength: MAX_NOTE })) }, { additionalProperties: false }), body, 'handback body');
    const note = input.note?.trim() || undefined;
    const { changed } = await this.#rt.store.handback(this.#id, note);
    if (changed) this.#live.recordings.human(this.#id, this.#row.principal, 'handback', {}, note !== undefined ? { note } : {});
    return { control: 'agent' };
  }

  async input(body: Record<string, unknown>): Promise<unknown> {
    if (!(await this.#rt.store.heldBy(this.#id))) throw new ApiError(409, 'NOT_IN_CONTROL', `lease ${this.#id}: input needs control: take over first (POST /api/leases/${this.#id}/takeover)`);
    const { type, ...args } = body;
    if (typeof type !== 'string' || !Object.hasOwn(INPUT_TOOL, type)) throw new ApiError(400, 'INVALID_REQUEST', `input type must be one of ${Object.keys(INPUT_TOOL).join(', ')}`);
    const kind = type as InputKind;
    // Gated in personInput, by the same check as the agent's call.
    const b = await this.#binding();
    const started = Date.now();
    let out: Record<string, unknown>;
    try {
      out = await this.#live.input(INPUT_TOOL[kind], POINTS.has(kind) ? { ...args, coordinate_space: 'screen' } : args, b);
    } catch (err) {
      const e = asVmhubError(err);
      this.#live.recordings.human(this.#id, this.#row.principal, 'input', recorded(body), { outcome: 'error', code: e.code, duration_ms: Date.now() - started });
      throw e;
    }
    // Where the pointer went, in screen pixels: a click's result names its point (whatever its target).
    const to = kind === 'click' ? { x: out.screen_x, y: out.screen_y } : kind === 'drag' ? args.to : kind === 'scroll' ? args : undefined;
    const session = this.#rt.sessions.get(this.#id);
    if (to && session) pointerOf(session).moved('human', to as { x: number; y: number });
    this.#live.recordings.human(this.#id, this.#row.principal, 'input', recorded(body), { frame: true, duration_ms: Date.now() - started });
    return { ok: true };
  }

  /** The pointer to draw: the machine's own when its adapter tells it (source "machine"), else the last point moved to; and the agent's last click. */
  async pointer(): Promise<{ pointer: (Omit<PointerMark, 'actor'> & { source: string }) | null; agent_click: PointerMark | null }> {
    const b = await this.#bind();
    const session = this.#rt.sessions.get(this.#id);
    const known = session ? pointerOf(session) : undefined;
    const agentClick = known?.agentClick ?? null;
    if (b.adapter?.verbs.some((v) => v.verb === VERB_MOUSE) && b.session.dispatch) {
      const signal = AbortSignal.any([b.context.signal, AbortSignal.timeout(POINTER_MS)]);
      const at = await b.session.dispatch({ ...b.context, signal }, { verb: VERB_MOUSE, args: {} }).catch(() => undefined) as { x?: unknown; y?: unknown } | undefined;
      if (typeof at?.x === 'number' && typeof at.y === 'number' && Number.isFinite(at.x) && Number.isFinite(at.y)) return { pointer: { x: at.x, y: at.y, at: new Date().toISOString(), source: 'machine' }, agent_click: agentClick };
    }
    const last = known?.last;
    return { pointer: last ? { x: last.x, y: last.y, at: last.at, source: last.actor } : null, agent_click: agentClick };
  }

  /** The machine's clipboard as text (copy out), while the person holds the lease; adapters with a get_clipboard verb only. */
  async clipboard(): Promise<{ text: string }> {
    if (!(await this.#rt.store.heldBy(this.#id))) throw new ApiError(409, 'NOT_IN_CONTROL', `lease ${this.#id}: reading the clipboard needs control: take over first (POST /api/leases/${this.#id}/takeover)`);
    const b = await this.#bind();
    if (!b.adapter?.verbs.some((v) => v.verb === VERB_CLIPBOARD) || !b.session.dispatch) {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `lease ${this.#id}: adapter "${b.adapter?.id}" (template ${b.template.id}) cannot read the machine's clipboard (it has no ${VERB_CLIPBOARD} verb)`);
    }
    const out = await b.session.dispatch(b.context, { verb: VERB_CLIPBOARD, args: {} }) as { text?: unknown } | undefined;
    const text = typeof out?.text === 'string' ? out.text : '';
    this.#live.recordings.human(this.#id, this.#row.principal, 'clipboard', { chars: text.length });
    return { text };
  }
}

/** The person's input as its recording step keeps it: pasted text is not kept (passwords are pasted), only its length. */
function recorded(body: Record<string, unknown>): Record<string, unknown> {
  return body.type === 'paste' && typeof body.text === 'string' ? { type: 'paste', chars: body.text.length } : body;
}

function parse(json: string): unknown {
  try { return JSON.parse(json); } catch { return json; }
}
