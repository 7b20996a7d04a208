/**
 * GET /api/leases/{id}/stream — the live screen over one WebSocket per viewer (docs/live-view.md,
 * "The stream"). The upgrade is authenticated like every /api request (a bearer header, or the
 * sign-in cookie — then the Origin must be this server's or an allowed one: a page on another
 * port of this host carries the cookie too), and the lease is checked against the principal like
 * every API call (another principal's is 404) before the socket is accepted.
 *
 * Server → viewer: binary frames (stream.ts: a 24-byte header and a JPEG of the changed
 * rectangle; the first is the whole screen), and text JSON `{type: "input", id, ok | error}`
 * answers, `{type: "error", code, message}`, `{type: "ended", reason}` before a close.
 * Viewer → server: text JSON `{type: "input", id?, input: {type: "click", …}}` — the body of POST
 * …/input, taken the same way (control held, the agent's tool's schema, recorded as the person's)
 * — and `{type: "width", max_width}` to change the frame width.
 * `?max_width=` (16–4096, default 1280) sets the first frame width.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { log } from '../log.ts';
import { ApiError, apiError, assertFrameWidth, leaseInput, ownLeaseFor, type Live } from './api.ts';
import { LEASE_ID } from './recorder.ts';
import { streamOf } from './stream-state.ts';
import type { LeaseStream, StreamViewer } from './stream.ts';

const ROUTE = /^\/api\/leases\/([^/]+)\/stream\/?$/;
/** Largest text message a viewer may send (a paste of 200 000 characters fits). */
const MAX_MESSAGE = 1024 * 1024;
const BIND_MS = 30_000;
/** One capture of the stream may take this long. */
const CAPTURE_MS = 10_000;

/** Whether `path` is the stream's (the upgrade handler takes it). */
export const isStreamPath = (path: string): boolean => ROUTE.test(path);

/** Who is asking: the principal, or the HTTP status and message to refuse the upgrade with. */
export type StreamAuth = { principal: string } | { status: number; message: string };

export function streamUpgrades(live: Live | undefined, authenticate: (req: IncomingMessage) => StreamAuth): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  // `ws` is loaded with the first stream, not at start-up: every MCP client pays the server's cold start.
  let wss: Promise<WebSocketServer> | undefined;
  const sockets = () => (wss ??= import('ws').then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE, perMessageDeflate: false })));
  return (req, socket, head) => {
    void accept(req, socket, head).catch((err: unknown) => {
      const { status, error } = apiError(err);
      refuse(socket, status, error.message);
    });
  };

  async function accept(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://vmhub');
    const m = ROUTE.exec(url.pathname);
    if (!m || !live) return refuse(socket, 404, 'no such stream');
    const auth = authenticate(req);
    if ('status' in auth) return refuse(socket, auth.status, auth.message);
    const id = m[1]!;
    if (!LEASE_ID.test(id)) return refuse(socket, 400, 'not a lease id');
    const asked = assertFrameWidth(Number(url.searchParams.get('max_width') ?? 1280));
    const rt = await live.runtime();
    const row = await ownLeaseFor(rt, id, live.viewers(auth.principal));
    const binding = await rt.sessions.bind(row.id, AbortSignal.timeout(BIND_MS), row.principal ?? undefined);
    if (!binding.session?.screenshot || !binding.adapter?.capabilities.includes('screenshot')) throw new ApiError(409, 'CAPABILITY_UNAVAILABLE', `lease ${id} has no screen to stream`);
    const session = rt.sessions.get(row.id);
    if (!session) throw new ApiError(409, 'LEASE_EXPIRED', `lease ${id} ended`);
    // Live frames: one capture may tear (the next follows), never a slow path (ScreenshotOptions.live).
    // Each capture gets its own deadline: the bind's signal lapses after BIND_MS, the stream does not.
    const stream = streamOf(session, () => binding.session!.screenshot!({ ...binding.context, signal: AbortSignal.timeout(CAPTURE_MS) }, { live: true }));
    (await sockets()).handleUpgrade(req, socket, head, (ws) => {
      const viewer: StreamViewer = { send: (msg) => ws.send(msg, { binary: true }), queued: () => ws.bufferedAmount, maxWidth: asked };
      stream.add(viewer, (reason) => { send(ws, { type: 'ended', reason }); ws.close(1001, 'lease session ended'); });
      ws.on('close', () => stream.remove(viewer));
      ws.on('error', () => stream.remove(viewer));
      ws.on('message', (data, binary) => {
        if (binary) return send(ws, { type: 'error', code: 'INVALID_REQUEST', message: 'send text (JSON) messages' });
        void message(ws, stream, viewer, data.toString(), auth.principal, id).then(() => stream.poke(), () => undefined);
      });
    });
  }

  async function message(ws: WebSocket, stream: LeaseStream, viewer: StreamViewer, text: string, principal: string, id: string): Promise<void> {
    let msg: { type?: unknown; id?: unknown; input?: unknown; max_width?: unknown };
    try { msg = JSON.parse(text) as typeof msg; } catch { return send(ws, { type: 'error', code: 'INVALID_REQUEST', message: 'a message must be JSON' }); }
    if (msg.type === 'width') {
      try { stream.resize(viewer, assertFrameWidth(msg.max_width)); } catch (err) { send(ws, { type: 'error', ...apiError(err).error }); }
      return;
    }
    if (msg.type !== 'input' || typeof msg.input !== 'object' || msg.input === null || Array.isArray(msg.input)) {
      return send(ws, { type: 'error', code: 'INVALID_REQUEST', message: 'messages are {type: "input", id?, input: {type: "click", …}} or {type: "width", max_width}' });
    }
    const ref = typeof msg.id === 'number' || typeof msg.id === 'string' ? msg.id : undefined;
    try {
      await leaseInput(live!, principal, id, msg.input as Record<string, unknown>);
      send(ws, { type: 'input', id: ref, ok: true });
    } catch (err) {
      send(ws, { type: 'input', id: ref, error: apiError(err).error });
    }
  }
}

function send(ws: WebSocket, body: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(body));
}

function refuse(socket: Duplex, status: number, message: string): void {
  log('debug', 'live stream refused', { status, message });
  const body = JSON.stringify({ error: { message } });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
