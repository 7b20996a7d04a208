/**
 * /ui/lease.js — the lease page (served for /ui/leases/<id>; the id comes from the address).
 * The live screen is a canvas fed by the lease's stream (stream-client.ts: changed rectangles
 * pushed over a WebSocket, the person's input sent back on it); without one (refused, closed,
 * a proxy that drops WebSockets) it falls back to a frame loop: the next frame is asked for when
 * the previous one is painted, at most ~10 a second, and the stream is tried again later. The events and recording are timeline.ts's,
 * fullscreen, 1:1, the pointer marks and the clipboard screen-tools.ts's.
 */
import { $, api, clockTime, controlBadge, errorText, fetchFrame, isEnded, LEASE_ID, relTime, say, shortId, statusBadge, type ApiError } from './common.ts';
import { isPasteChord, keyAction, screenPoint, scrollAction } from './input-map.ts';
import { screenTools } from './screen-tools.ts';
import { openStream, type StreamClient } from './stream-client.ts';
import { timeline } from './timeline.ts';
import type { ControlAnswer, FrameGeometry, LeasePage, LeaseView } from './types.ts';

const FRAME_MIN_MS = 100;       // ≤ 10 frames a second
const FRAME_RETRY_MS = 1000;
const STREAM_RETRY_MS = 2000;     // a stream that closed or could not open is tried again, backing off
const STREAM_RETRY_MAX_MS = 30_000;
const STATE_MS = 2000;
const TYPE_IDLE_MS = 150;       // typed characters travel together as one "type" input
const TYPE_MAX = 200;
const BUTTONS: Record<number, string> = { 0: 'left', 1: 'middle', 2: 'right' };

type Input = Record<string, unknown> & { type: string };

function main(): void {
  const id = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop() || '');
  if (!LEASE_ID.test(id)) {
    say('This address names no lease: open one from the list at /ui/.', 'error');
    return;
  }
  const base = '/api/leases/' + id;
  const screen = $<HTMLCanvasElement>('screen');
  const page: LeasePage = { id, base, screen, lease: null, control: '', ended: false, shown: null, actualSize: false, inputs: Promise.resolve() };

  $('lease-id').textContent = id;
  $<HTMLAnchorElement>('download').href = base + '/recording?format=html';
  document.title = 'vmhub — lease ' + shortId(id);

  // ---- lease state and control ----

  const allowBox = $<HTMLInputElement>('allow-commands');
  let allowBusy = false;

  function inControl(): boolean { return page.control === 'human' && !!page.lease && page.lease.status === 'ready'; }

  function applyLease(view: LeaseView): void {
    page.lease = view;
    statusBadge($('lease-status'), view.status);
    $('lease-template').textContent = view.template || '';
    $('lease-owner').textContent = view.owner || '—';
    page.ended = isEnded(view.status);
    $('lease-expires').textContent = page.ended ? 'ended' : relTime(view.expires_at);
    $('lease-expires').title = view.expires_at || '';
    $<HTMLButtonElement>('renew').disabled = page.ended;
    $<HTMLButtonElement>('release').disabled = page.ended || view.status === 'releasing';
    if (view.control) applyControl(view.control, view.control_since, view.allow_commands_and_files);
    else if (page.ended) applyControl('agent');
    if (page.ended) screenNote('This lease has ended; the last frame stays on display.');
  }

  function applyControl(next: string, since?: string, allow?: boolean): void {
    page.control = next;
    const human = next === 'human';
    controlBadge($('control'), next);
    // While a person holds the lease the box shows (and changes) what the server applies.
    if (human && typeof allow === 'boolean' && !allowBusy) allowBox.checked = allow;
    allowBox.disabled = page.ended;
    $('banner').textContent = human && allowBox.checked
      ? 'You have control — the agent\'s input is paused; its commands and files may still run'
      : 'You have control — the agent is paused';
    $('takeover').hidden = human;
    $<HTMLButtonElement>('takeover').disabled = page.ended || !page.lease || page.lease.status !== 'ready';
    $('handback').hidden = !human;
    $('handback-form').hidden = !human;
    $('banner').hidden = !human;
    $('control-since').textContent = human && since ? 'since ' + clockTime(since) : '';
    $('screen-box').classList.toggle('human', human);
    $('input-hint').hidden = !human;
    $('clipboard-panel').hidden = !human;
  }

  function refreshLease(): Promise<void> {
    return api<LeaseView>('GET', base).then(applyLease).catch((err: ApiError) => {
      if (err.status === 404) { page.ended = true; say('No lease ' + id + ' here (it is not yours, or it never existed).', 'error'); }
      else say(errorText(err), 'error');
    });
  }

  function pollLease(): void {
    void refreshLease().then(() => { setTimeout(pollLease, STATE_MS); });
  }

  function act(button: HTMLButtonElement, work: () => Promise<unknown>): Promise<void> {
    button.disabled = true;
    return work().then(() => { say(''); }).catch((err) => { say(errorText(err), 'error'); })
      .then(() => { button.disabled = false; return refreshLease(); });
  }

  $('takeover').addEventListener('click', () => {
    void act($<HTMLButtonElement>('takeover'), () => api<ControlAnswer>('POST', base + '/takeover', { allow_commands_and_files: allowBox.checked }).then((r) => {
      applyControl(r.control || 'human', r.control_since, r.allow_commands_and_files);
      screen.focus();
    }));
  });

  // Changed while holding: the same take-over again sets the new allowance (the time is kept).
  allowBox.addEventListener('change', () => {
    if (page.control !== 'human') return;
    allowBusy = true;
    api<ControlAnswer>('POST', base + '/takeover', { allow_commands_and_files: allowBox.checked }).then((r) => {
      allowBusy = false;
      applyControl(r.control || 'human', r.control_since, r.allow_commands_and_files);
      say('');
    }).catch((err) => { allowBusy = false; say(errorText(err), 'error'); return refreshLease(); });
  });

  $('handback').addEventListener('click', () => {
    const noteBox = $<HTMLTextAreaElement>('handback-note');
    const note = noteBox.value.trim();
    flushText();
    // Everything the person typed reaches the machine before the agent gets it back.
    void act($<HTMLButtonElement>('handback'), () => page.inputs
      .then(() => api<ControlAnswer>('POST', base + '/handback', note ? { note } : {}))
      .then((r) => {
        noteBox.value = '';
        applyControl(r.control || 'agent');
      }));
  });

  $('renew').addEventListener('click', () => {
    void act($<HTMLButtonElement>('renew'), () => api<LeaseView>('POST', base + '/renew', {}).then(applyLease));
  });

  // Releasing destroys the machine: asked first (Cancel keeps the lease as it is).
  $('release').addEventListener('click', () => {
    if (!window.confirm('Release lease ' + shortId(id) + '? Its machine is destroyed and what is on it is lost.')) return;
    void act($<HTMLButtonElement>('release'), () => api<LeaseView>('POST', base + '/release', {}).then(applyLease));
  });

  // ---- the live screen ----

  let frameCount = 0;        // answers applied: rectangles painted, and "unchanged" answers
  let imageCount = 0;        // images painted
  let shownTag = '';         // X-Frame of the image on display: the next request asks ?since= it
  let frameBusy = false;
  let frameTimer = 0;
  let stream: StreamClient | null = null;
  let streamWidth = 0;
  let streamRetry = STREAM_RETRY_MS;
  let streamTimer = 0;

  function screenNote(text: string): void {
    $('screen-note').textContent = text;
    $('screen-note').hidden = !text;
  }

  function frameWidth(): number {
    // 1:1 asks for the screen's own width: one image pixel per screen pixel.
    if (page.actualSize && page.shown && page.shown.screenWidth > 0) return Math.max(16, Math.min(4096, page.shown.screenWidth));
    const px = ($('screen-box').clientWidth || 1024) * (window.devicePixelRatio || 1);
    // Steps of 160 px: the same request size while the window is resized a little.
    return Math.max(320, Math.min(1280, Math.ceil(px / 160) * 160));
  }

  /** A frame or rectangle is on the canvas: the page's geometry, counters and layout follow. */
  function painted(geometry: FrameGeometry, resized: boolean): void {
    const sized = !page.shown || resized || page.shown.naturalWidth !== geometry.naturalWidth || page.shown.screenWidth !== geometry.screenWidth;
    page.shown = geometry;
    frameCount += 1;
    imageCount += 1;
    screen.setAttribute('data-frame', String(frameCount));
    screen.setAttribute('data-images', String(imageCount));
    if (sized) tools.layoutScreen();
    screenNote('');
  }

  // The stream: frames pushed as they change (stream-client.ts). While it is open the page asks
  // for no frames; when it closes, frames are asked for again and the stream is tried later.
  function startStream(): void {
    streamTimer = 0;
    if (stream || page.ended || document.hidden || typeof WebSocket === 'undefined') return;
    streamWidth = frameWidth();
    openStream(base, screen, streamWidth, {
      onFrame(geometry, rect, resized) {
        painted(geometry, resized);
        screen.dispatchEvent(new CustomEvent('vmhub-frame', { detail: rect }));
      },
      onClose() {
        stream = null;
        screen.removeAttribute('data-stream');
        if (page.ended) return;
        scheduleFrame(0);
        streamTimer = setTimeout(startStream, streamRetry);
        streamRetry = Math.min(streamRetry * 2, STREAM_RETRY_MAX_MS);
      },
    }).then((client) => {
      stream = client;
      streamRetry = STREAM_RETRY_MS;
      screen.setAttribute('data-stream', 'open');
    }, () => {
      if (!page.ended && !streamTimer) streamTimer = setTimeout(startStream, streamRetry);
      streamRetry = Math.min(streamRetry * 2, STREAM_RETRY_MAX_MS);
    });
  }

  function scheduleFrame(ms: number): void {
    if (stream) {
      // 1:1 or a resize: the stream's frames at the new width.
      const w = frameWidth();
      if (w !== streamWidth) { streamWidth = w; stream.width(w); }
      return;
    }
    if (!frameBusy && !frameTimer) frameTimer = setTimeout(requestFrame, ms);
  }

  // Without the stream: the next frame is asked for when the previous one is painted, at most
  // ~10 a second; an unchanged screen answers 204 and nothing is fetched or painted.
  function requestFrame(): void {
    frameTimer = 0;
    if (stream || document.hidden || page.ended) return;   // visibilitychange and the lease poll restart it
    frameBusy = true;
    const started = Date.now();
    const since = page.shown && shownTag ? '&since=' + encodeURIComponent(shownTag) : '';
    fetchFrame(base + '/screen?format=jpeg&max_width=' + frameWidth() + since).then((frame) => {
      if (frame.unchanged) {                // nothing new: the canvas stays
        frameCount += 1;
        screen.setAttribute('data-frame', String(frameCount));
        screenNote('');
        return;
      }
      return createImageBitmap(frame.blob).then((bitmap) => {
        // The stream opened while this frame was on its way: it owns the canvas now.
        if (stream) { bitmap.close(); return; }
        const resized = screen.width !== bitmap.width || screen.height !== bitmap.height;
        if (resized) { screen.width = bitmap.width; screen.height = bitmap.height; }
        screen.getContext('2d')!.drawImage(bitmap, 0, 0);
        bitmap.close();
        shownTag = frame.tag || '';
        painted({ naturalWidth: screen.width, naturalHeight: screen.height, ...frame.geometry }, resized);
      });
    }).then(() => {
      frameBusy = false;
      scheduleFrame(Math.max(0, FRAME_MIN_MS - (Date.now() - started)));
    }, (err: ApiError) => {
      frameBusy = false;
      screenNote(err.status === 409 ? 'The machine is not ready yet.' : errorText(err));
      scheduleFrame(FRAME_RETRY_MS);
    });
  }

  document.addEventListener('visibilitychange', () => {
    if (document.hidden) { stream?.close(); return; }
    scheduleFrame(0);
    startStream();
  });
  setInterval(() => { if (!page.ended) { scheduleFrame(0); if (!stream && !streamTimer) startStream(); } }, STATE_MS);

  // ---- the person's input (only while they have control) ----

  let typed = '';
  let typeTimer = 0;

  // Over the stream when it is open (the answer comes back on it), else POST …/input.
  function send(input: Input): Promise<unknown> {
    page.inputs = page.inputs.then(() => (stream ? stream.input(input) : api('POST', base + '/input', input))).catch((err: ApiError) => {
      say(errorText(err), 'error');
      if (err.code === 'NOT_IN_CONTROL') void refreshLease();
    });
    return page.inputs;
  }

  function flushText(): void {
    clearTimeout(typeTimer);
    typeTimer = 0;
    if (!typed) return;
    const text = typed;
    typed = '';
    void send({ type: 'type', text });
  }

  function typeText(text: string): void {
    typed += text;
    clearTimeout(typeTimer);
    if (typed.length >= TYPE_MAX) flushText();
    else typeTimer = setTimeout(flushText, TYPE_IDLE_MS);
  }

  screen.addEventListener('keydown', (e) => {
    if (!inControl() || e.isComposing) return;
    const action = keyAction(e);
    if (!action) return;
    if (isPasteChord(action)) return;   // the browser's paste event carries the person's clipboard
    e.preventDefault();
    if (action.type === 'type') typeText(action.text);
    else { flushText(); void send(action); }
  });

  let down: { x: number; y: number; button: number } | null = null;

  screen.addEventListener('mousedown', (e) => {
    if (!inControl()) return;
    e.preventDefault();                     // no native image drag, no text selection
    screen.focus();
    down = { x: e.clientX, y: e.clientY, button: e.button };
  });

  window.addEventListener('mouseup', (e) => {
    const start = down;
    down = null;
    if (!start || !inControl()) return;
    const rect = screen.getBoundingClientRect();
    const from = screenPoint(rect, start.x, start.y, page.shown);
    if (!from) return;
    flushText();
    const moved = Math.abs(e.clientX - start.x) + Math.abs(e.clientY - start.y) > 6;
    if (moved && start.button === 0) {
      const cx = Math.max(rect.left, Math.min(rect.right, e.clientX));
      const cy = Math.max(rect.top, Math.min(rect.bottom, e.clientY));
      const to = screenPoint(rect, cx, cy, page.shown);
      if (to) void send({ type: 'drag', from, to });
      return;
    }
    void send({ type: 'click', x: from.x, y: from.y, button: BUTTONS[start.button] || 'left' });
  });

  screen.addEventListener('contextmenu', (e) => { if (inControl()) e.preventDefault(); });

  let wheel: { dx: number; dy: number; mode: number; x: number; y: number } | null = null;

  screen.addEventListener('wheel', (e) => {
    if (!inControl()) return;
    e.preventDefault();
    // A trackpad sends dozens of small deltas: they travel as one scroll every ~120 ms.
    if (!wheel) {
      wheel = { dx: 0, dy: 0, mode: e.deltaMode, x: e.clientX, y: e.clientY };
      setTimeout(flushWheel, 120);
    }
    wheel.dx += e.deltaX;
    wheel.dy += e.deltaY;
  }, { passive: false });

  function flushWheel(): void {
    const w = wheel;
    wheel = null;
    if (!w || !inControl()) return;
    const at = screenPoint(screen.getBoundingClientRect(), w.x, w.y, page.shown);
    const step = scrollAction(w.dx, w.dy, w.mode);
    if (!at || !step) return;
    flushText();
    void send({ type: 'scroll', x: at.x, y: at.y, direction: step.direction, amount: step.amount });
  }

  // ---- the other parts, then everything starts ----

  const events = timeline(page);
  const tools = screenTools(page, { inControl, flushText, scheduleFrame, refreshLease });

  pollLease();
  scheduleFrame(0);
  startStream();
  events.pollEvents();
  events.pollRecording();
  tools.pollPointer();
}

main();
