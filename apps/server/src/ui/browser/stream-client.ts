/**
 * The lease page's end of the live stream (GET /api/leases/{id}/stream, a WebSocket): binary
 * messages are changed rectangles of the screen — a 24-byte little-endian header (version, flags,
 * seq, the frame's size, the screen's size, the rectangle) and a JPEG — painted onto the page's
 * canvas in the order they came; text messages answer the person's input sent over the same
 * socket. `onFrame` hears each painted rectangle; `onClose` hears that the stream is gone (the
 * page then falls back to asking for frames, and tries the stream again later).
 */
import type { FrameGeometry } from './input-map.ts';

const HEADER = 24;

export interface StreamHooks {
  /** A rectangle was painted; `resized`: the canvas took a new size (a whole frame). */
  onFrame(geometry: FrameGeometry, rect: { seq: number; x: number; y: number; width: number; height: number }, resized: boolean): void;
  onClose(reason: string): void;
}

export interface StreamClient {
  /** Send the person's input; resolves when the server has taken it, rejects with its error. */
  input(input: Record<string, unknown>): Promise<void>;
  /** Ask for frames at most `maxWidth` wide. */
  width(maxWidth: number): void;
  close(): void;
}

/** Open the stream of `base` (/api/leases/<id>) painting onto `canvas`; resolves once it is open. */
export function openStream(base: string, canvas: HTMLCanvasElement, maxWidth: number, hooks: StreamHooks): Promise<StreamClient> {
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + base + '/stream?max_width=' + maxWidth;
  const ws = new WebSocket(url);
  ws.binaryType = 'arraybuffer';
  const ctx = canvas.getContext('2d');
  let painting: Promise<void> = Promise.resolve();
  let next = 1;
  const waiting = new Map<number, { ok: () => void; fail: (e: unknown) => void }>();
  let closed = false;
  let width = maxWidth;

  function paint(buf: ArrayBuffer): void {
    const v = new DataView(buf);
    if (buf.byteLength <= HEADER || v.getUint8(0) !== 1) return;
    const seq = v.getUint32(4, true);
    const fw = v.getUint16(8, true), fh = v.getUint16(10, true);
    const sw = v.getUint16(12, true), sh = v.getUint16(14, true);
    const x = v.getUint16(16, true), y = v.getUint16(18, true), w = v.getUint16(20, true), h = v.getUint16(22, true);
    const whole = (v.getUint8(1) & 1) === 1;
    const jpeg = new Blob([buf.slice(HEADER)], { type: 'image/jpeg' });
    // In order: a later rectangle may cover an earlier one.
    painting = painting.then(() => createImageBitmap(jpeg)).then((bitmap) => {
      const resized = canvas.width !== fw || canvas.height !== fh;
      if (resized && !whole) {
        // A rectangle of a frame this canvas does not hold (resizing would clear it): ask for a
        // whole frame instead of painting a part onto nothing.
        bitmap.close();
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'width', max_width: width }));
        return;
      }
      if (resized) { canvas.width = fw; canvas.height = fh; }
      ctx!.drawImage(bitmap, x, y);
      bitmap.close();
      hooks.onFrame({ naturalWidth: fw, naturalHeight: fh, scale: sw > 0 ? fw / sw : 0, screenWidth: sw, screenHeight: sh }, { seq, x, y, width: w, height: h }, resized);
    }).catch(() => undefined);
  }

  function answer(text: string): void {
    let msg: { type?: string; id?: number; ok?: boolean; error?: { code?: string; message?: string }; reason?: string; code?: string; message?: string };
    try { msg = JSON.parse(text); } catch { return; }
    if (msg.type === 'input' && typeof msg.id === 'number') {
      const w = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (!w) return;
      if (msg.ok) w.ok();
      else w.fail({ status: msg.error?.code === 'NOT_IN_CONTROL' ? 409 : 0, code: msg.error?.code, message: msg.error?.message });
    } else if (msg.type === 'ended') {
      finish(msg.reason || 'the stream ended');
    }
  }

  function finish(reason: string): void {
    if (closed) return;
    closed = true;
    for (const w of waiting.values()) w.fail({ status: 0, code: 'STREAM_CLOSED', message: 'the live stream closed before the input was answered: ' + reason });
    waiting.clear();
    hooks.onClose(reason);
  }

  return new Promise<StreamClient>((resolve, reject) => {
    ws.onopen = () => resolve({
      input(input) {
        if (closed || ws.readyState !== WebSocket.OPEN) return Promise.reject({ status: 0, code: 'STREAM_CLOSED', message: 'the live stream is closed' });
        const id = next++;
        return new Promise<void>((ok, fail) => {
          waiting.set(id, { ok, fail });
          ws.send(JSON.stringify({ type: 'input', id, input }));
        });
      },
      width(w) { width = w; if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'width', max_width: w })); },
      close() { ws.close(); },
    });
    ws.onerror = () => reject(new Error('the live stream could not be opened'));
    ws.onmessage = (e: MessageEvent) => { if (typeof e.data === 'string') answer(e.data); else paint(e.data as ArrayBuffer); };
    ws.onclose = (e: CloseEvent) => finish(e.reason || 'closed (' + e.code + ')');
  });
}
