/**
 * The lease page's side of what happened: the events list (newest first) and the recording
 * timeline (newest last, each step with the frame after it and what the call answered). Part of
 * /ui/lease.js; it uses the page's `base`, `ended`, the shared helpers and READABLE_SCRIPT's
 * eventText/resultText, which share its scope.
 */
export const TIMELINE_SCRIPT = String.raw`
var EVENTS_MS = 3000;
var RECORDING_MS = 3000;

// ---- events ----

var eventsShown = '';

function renderEvents(events) {
  var key = events.length + '|' + (events.length ? events[events.length - 1].at + events[events.length - 1].kind : '');
  if (key === eventsShown) return;
  eventsShown = key;
  var list = $('events');
  list.textContent = '';
  // Newest first: the side panel shows what just happened without scrolling. One sentence each
  // (eventText); the raw kind stays in data-kind and the tooltip.
  events.slice(-200).reverse().forEach(function (ev) {
    list.appendChild(el('li', { 'data-kind': ev.kind, title: ev.kind }, [
      el('time', { datetime: ev.at, text: clockTime(ev.at), title: ev.at }),
      el('span', { className: 'event-text', text: eventText(ev) })
    ]));
  });
  $('events-empty').hidden = events.length > 0;
}

function pollEvents() {
  api('GET', base + '/events').then(function (data) {
    renderEvents((data && data.events) || []);
  }).catch(function () { /* the lease poll reports what is wrong */ }).then(function () {
    if (!ended) setTimeout(pollEvents, EVENTS_MS);
    else setTimeout(pollEvents, EVENTS_MS * 10);
  });
}

// ---- recording timeline ----

var lastSeq = -Infinity;
var stepCount = 0;

function argsText(args) {
  if (!args || typeof args !== 'object') return '';
  var text = JSON.stringify(args);
  if (text === '{}') return '';
  return text.length > 160 ? text.slice(0, 160) + '…' : text;
}

function stepItem(step) {
  var thumb = null;
  if (typeof step.screenshot === 'string' && step.screenshot.indexOf('data:image/') === 0) {
    thumb = el('img', { className: 'step-shot', src: step.screenshot, alt: 'screen after step ' + step.seq, loading: 'lazy' });
    thumb.addEventListener('click', function () { thumb.classList.toggle('large'); });
  }
  var outcome = step.outcome === 'error' ? 'error' + (step.code ? ' ' + step.code : '') : 'ok';
  return el('li', { 'data-tool': step.tool, 'data-actor': step.actor, 'data-seq': step.seq, className: 'step actor-' + step.actor + ' outcome-' + step.outcome }, [
    thumb || el('div', { className: 'step-shot none', text: 'no frame' }),
    el('div', { className: 'step-body' }, [
      el('div', { className: 'step-head' }, [
        el('span', { className: 'seq', text: '#' + step.seq }),
        el('span', { className: 'badge actor actor-' + step.actor, text: step.actor, title: step.principal ? 'principal: ' + step.principal : '' }),
        el('strong', { className: 'tool', text: step.tool }),
        el('span', { className: 'outcome', text: outcome }),
        el('span', { className: 'duration', text: typeof step.duration_ms === 'number' ? step.duration_ms + ' ms' : '' }),
        el('time', { datetime: step.at, text: clockTime(step.at) })
      ]),
      argsText(step.args) ? el('code', { className: 'args', text: argsText(step.args) }) : null,
      resultText(step) ? el('code', { className: 'result', text: '→ ' + resultText(step) }) : null,
      step.note ? el('p', { className: 'note', text: step.note }) : null
    ])
  ]);
}

function renderSteps(steps) {
  var list = $('steps');
  var atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 24;
  var added = 0;
  steps.forEach(function (step) {
    if (!(step.seq > lastSeq)) return;    // already on the page
    list.appendChild(stepItem(step));
    lastSeq = step.seq;
    stepCount += 1;
    added += 1;
  });
  if (added && atEnd) list.scrollTop = list.scrollHeight;
  $('steps-empty').hidden = stepCount > 0;
  $('step-count').textContent = stepCount === 1 ? '1 step' : stepCount + ' steps';
}

function pollRecording() {
  // Only the steps after the last one shown (?since), and never for a tab nobody looks at.
  if (document.hidden) { setTimeout(pollRecording, RECORDING_MS); return; }
  var wasEnded = ended;
  api('GET', base + '/recording' + (lastSeq >= 0 ? '?since=' + lastSeq : '')).then(function (data) {
    var steps = ((data && data.steps) || []).slice().sort(function (a, b) { return a.seq - b.seq; });
    renderSteps(steps);
    $('steps-empty').textContent = 'No steps yet: tool calls on this lease appear here.';
  }).catch(function (err) {
    if (!stepCount) $('steps-empty').textContent = 'No recording: ' + errorText(err);
  }).then(function () {
    // One last read after the lease ends picks up its final steps; then the timeline is complete.
    if (!wasEnded) setTimeout(pollRecording, RECORDING_MS);
  });
}
`;
