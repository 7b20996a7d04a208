/**
 * /ui/lease.js — the lease page (served for /ui/leases/<id>; the id comes from the address).
 * The live screen is a frame loop, not a stream: the next frame is asked for when the previous
 * one has loaded (or failed), at most ~10 a second, so a slow machine or link never builds a
 * backlog. Frames come through fetch because <img> cannot read the X-Screen-* / X-Image-Scale
 * headers that map a click back to screen pixels.
 */
import { COMMON_SCRIPT } from './common-script.ts';
import { INPUT_MAP_SCRIPT } from './input-map.ts';
import { READABLE_SCRIPT } from './readable-script.ts';
import { SCREEN_TOOLS_SCRIPT } from './screen-tools-script.ts';
import { TIMELINE_SCRIPT } from './timeline-script.ts';

const LEASE_SCRIPT = String.raw`
var FRAME_MIN_MS = 100;       // ≤ 10 frames a second
var FRAME_RETRY_MS = 1000;
var STATE_MS = 2000;
var TYPE_IDLE_MS = 150;       // typed characters travel together as one "type" input
var TYPE_MAX = 200;
var BUTTONS = { 0: 'left', 1: 'middle', 2: 'right' };

var id = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop() || '');
if (!LEASE_ID.test(id)) {
  say('This address names no lease: open one from the list at /ui/.', 'error');
  return;
}
var base = '/api/leases/' + id;
var screen = $('screen');
var lease = null;
var control = '';
var ended = false;

$('lease-id').textContent = id;
$('download').href = base + '/recording?format=html';
document.title = 'vmhub — lease ' + shortId(id);

// ---- lease state and control ----

function inControl() { return control === 'human' && lease && lease.status === 'ready'; }

function applyLease(view) {
  lease = view;
  statusBadge($('lease-status'), view.status);
  $('lease-template').textContent = view.template || '';
  $('lease-owner').textContent = view.owner || '—';
  ended = !!ENDED[view.status];
  $('lease-expires').textContent = ended ? 'ended' : relTime(view.expires_at);
  $('lease-expires').title = view.expires_at || '';
  $('renew').disabled = ended;
  $('release').disabled = ended || view.status === 'releasing';
  if (view.control) applyControl(view.control, view.control_since, view.allow_commands_and_files);
  else if (ended) applyControl('agent');
  if (ended) screenNote('This lease has ended; the last frame stays on display.');
}

function applyControl(next, since, allow) {
  control = next;
  var human = next === 'human';
  controlBadge($('control'), next);
  // While a person holds the lease the box shows (and changes) what the server applies.
  if (human && typeof allow === 'boolean' && !allowBusy) $('allow-commands').checked = allow;
  $('allow-commands').disabled = ended;
  $('banner').textContent = human && $('allow-commands').checked
    ? 'You have control — the agent\'s input is paused; its commands and files may still run'
    : 'You have control — the agent is paused';
  $('takeover').hidden = human;
  $('takeover').disabled = ended || !lease || lease.status !== 'ready';
  $('handback').hidden = !human;
  $('handback-form').hidden = !human;
  $('banner').hidden = !human;
  $('control-since').textContent = human && since ? 'since ' + clockTime(since) : '';
  $('screen-box').classList.toggle('human', human);
  $('input-hint').hidden = !human;
  $('clipboard-panel').hidden = !human;
}

function refreshLease() {
  return api('GET', base).then(applyLease).catch(function (err) {
    if (err.status === 404) { ended = true; say('No lease ' + id + ' here (it is not yours, or it never existed).', 'error'); }
    else say(errorText(err), 'error');
  });
}

function pollLease() {
  refreshLease().then(function () { setTimeout(pollLease, STATE_MS); });
}

function act(button, work) {
  button.disabled = true;
  return work().then(function () { say(''); }).catch(function (err) { say(errorText(err), 'error'); })
    .then(function () { button.disabled = false; return refreshLease(); });
}

$('takeover').addEventListener('click', function () {
  act($('takeover'), function () {
    return api('POST', base + '/takeover', { allow_commands_and_files: $('allow-commands').checked }).then(function (r) {
      applyControl(r.control || 'human', r.control_since, r.allow_commands_and_files);
      screen.focus();
    });
  });
});

// Changed while holding: the same take-over again sets the new allowance (the time is kept).
var allowBusy = false;
$('allow-commands').addEventListener('change', function () {
  if (control !== 'human') return;
  allowBusy = true;
  api('POST', base + '/takeover', { allow_commands_and_files: $('allow-commands').checked }).then(function (r) {
    allowBusy = false;
    applyControl(r.control || 'human', r.control_since, r.allow_commands_and_files);
    say('');
  }).catch(function (err) { allowBusy = false; say(errorText(err), 'error'); return refreshLease(); });
});

$('handback').addEventListener('click', function () {
  var note = $('handback-note').value.trim();
  flushText();
  // Everything the person typed reaches the machine before the agent gets it back.
  act($('handback'), function () {
    return inputs.then(function () {
      return api('POST', base + '/handback', note ? { note: note } : {});
    }).then(function (r) {
      $('handback-note').value = '';
      applyControl(r.control || 'agent');
    });
  });
});

$('renew').addEventListener('click', function () {
  act($('renew'), function () { return api('POST', base + '/renew', {}).then(applyLease); });
});

// Releasing destroys the machine: asked first (Cancel keeps the lease as it is).
$('release').addEventListener('click', function () {
  if (!window.confirm('Release lease ' + shortId(id) + '? Its machine is destroyed and what is on it is lost.')) return;
  act($('release'), function () { return api('POST', base + '/release', {}).then(applyLease); });
});

// ---- the live screen ----

var frameCount = 0;        // answers applied: images loaded, and "unchanged" answers
var imageCount = 0;        // images loaded
var shown = null;         // geometry of the frame on display: what clicks map through
var shownUrl = '';
var shownTag = '';        // X-Frame of the image on display: the next request asks ?since= it
var pending = null;       // the frame being loaded into the <img>
var frameBusy = false;
var frameTimer = 0;

function screenNote(text) {
  $('screen-note').textContent = text;
  $('screen-note').hidden = !text;
}

function frameWidth() {
  // 1:1 asks for the screen's own width: one image pixel per screen pixel.
  if (actualSize && shown && shown.screenWidth > 0) return Math.max(16, Math.min(4096, shown.screenWidth));
  var px = ($('screen-box').clientWidth || 1024) * (window.devicePixelRatio || 1);
  // Steps of 160 px: the same request size while the window is resized a little.
  return Math.max(320, Math.min(1280, Math.ceil(px / 160) * 160));
}

function scheduleFrame(ms) {
  if (!frameBusy && !frameTimer) frameTimer = setTimeout(requestFrame, ms);
}

function requestFrame() {
  frameTimer = 0;
  if (document.hidden || ended) return;   // visibilitychange and the lease poll restart it
  frameBusy = true;
  var started = Date.now();
  var since = shown && shownTag ? '&since=' + encodeURIComponent(shownTag) : '';
  fetchFrame(base + '/screen?format=jpeg&max_width=' + frameWidth() + since).then(function (frame) {
    if (frame.unchanged) {                // nothing new to load: the image on display stays
      frameBusy = false;
      frameCount += 1;
      screen.setAttribute('data-frame', String(frameCount));
      screenNote('');
      scheduleFrame(Math.max(0, FRAME_MIN_MS - (Date.now() - started)));
      return;
    }
    pending = { url: URL.createObjectURL(frame.blob), geometry: frame.geometry, started: started, tag: frame.tag };
    screen.src = pending.url;             // the load / error handlers continue the loop
  }).catch(function (err) {
    frameBusy = false;
    screenNote(err.status === 409 ? 'The machine is not ready yet.' : errorText(err));
    scheduleFrame(FRAME_RETRY_MS);
  });
}

screen.addEventListener('load', function () {
  if (!pending) return;
  var done = pending;
  pending = null;
  frameBusy = false;
  if (shownUrl) URL.revokeObjectURL(shownUrl);
  shownUrl = done.url;
  shown = {
    naturalWidth: screen.naturalWidth, naturalHeight: screen.naturalHeight, scale: done.geometry.scale,
    screenWidth: done.geometry.screenWidth, screenHeight: done.geometry.screenHeight
  };
  shownTag = done.tag || '';
  frameCount += 1;
  imageCount += 1;
  screen.setAttribute('data-frame', String(frameCount));
  screen.setAttribute('data-images', String(imageCount));
  layoutScreen();
  screenNote('');
  scheduleFrame(Math.max(0, FRAME_MIN_MS - (Date.now() - done.started)));
});

screen.addEventListener('error', function () {
  if (!pending) return;
  URL.revokeObjectURL(pending.url);
  pending = null;
  frameBusy = false;
  scheduleFrame(FRAME_RETRY_MS);
});

document.addEventListener('visibilitychange', function () { if (!document.hidden) scheduleFrame(0); });
setInterval(function () { if (!ended) scheduleFrame(0); }, STATE_MS);

// ---- the person's input (only while they have control) ----

var inputs = Promise.resolve();   // one at a time, in order
var typed = '';
var typeTimer = 0;

function send(input) {
  inputs = inputs.then(function () { return api('POST', base + '/input', input); }).catch(function (err) {
    say(errorText(err), 'error');
    if (err.code === 'NOT_IN_CONTROL') refreshLease();
  });
  return inputs;
}

function flushText() {
  clearTimeout(typeTimer);
  typeTimer = 0;
  if (!typed) return;
  var text = typed;
  typed = '';
  send({ type: 'type', text: text });
}

function typeText(text) {
  typed += text;
  clearTimeout(typeTimer);
  if (typed.length >= TYPE_MAX) flushText();
  else typeTimer = setTimeout(flushText, TYPE_IDLE_MS);
}

screen.addEventListener('keydown', function (e) {
  if (!inControl() || e.isComposing) return;
  var action = keyAction(e);
  if (!action) return;
  if (action.type === 'key' && PASTE_CHORDS[action.keys]) return;   // the browser's paste event carries the person's clipboard
  e.preventDefault();
  if (action.type === 'type') typeText(action.text);
  else { flushText(); send(action); }
});

var down = null;

screen.addEventListener('mousedown', function (e) {
  if (!inControl()) return;
  e.preventDefault();                     // no native image drag, no text selection
  screen.focus();
  down = { x: e.clientX, y: e.clientY, button: e.button };
});

window.addEventListener('mouseup', function (e) {
  var start = down;
  down = null;
  if (!start || !inControl()) return;
  var rect = screen.getBoundingClientRect();
  var from = screenPoint(rect, start.x, start.y, shown);
  if (!from) return;
  flushText();
  var moved = Math.abs(e.clientX - start.x) + Math.abs(e.clientY - start.y) > 6;
  if (moved && start.button === 0) {
    var cx = Math.max(rect.left, Math.min(rect.right, e.clientX));
    var cy = Math.max(rect.top, Math.min(rect.bottom, e.clientY));
    var to = screenPoint(rect, cx, cy, shown);
    if (to) send({ type: 'drag', from: from, to: to });
    return;
  }
  send({ type: 'click', x: from.x, y: from.y, button: BUTTONS[start.button] || 'left' });
});

screen.addEventListener('contextmenu', function (e) { if (inControl()) e.preventDefault(); });

var wheel = null;

screen.addEventListener('wheel', function (e) {
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

function flushWheel() {
  var w = wheel;
  wheel = null;
  if (!w || !inControl()) return;
  var at = screenPoint(screen.getBoundingClientRect(), w.x, w.y, shown);
  var step = scrollAction(w.dx, w.dy, w.mode);
  if (!at || !step) return;
  flushText();
  send({ type: 'scroll', x: at.x, y: at.y, direction: step.direction, amount: step.amount });
}

pollLease();
scheduleFrame(0);
pollEvents();
pollRecording();
`;

export const LEASE_JS = `(function () {\n'use strict';\n${COMMON_SCRIPT}\n${INPUT_MAP_SCRIPT}\n${READABLE_SCRIPT}\n${TIMELINE_SCRIPT}\n${LEASE_SCRIPT}\n${SCREEN_TOOLS_SCRIPT}\n})();\n`;
