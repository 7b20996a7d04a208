/**
 * The lease page's side of what happened: the events list (newest first) and the recording
 * timeline (newest last, each step with the frame after it and what the call answered). Reads
 * the page's `base` and `ended` (types.ts LeasePage); words from readable.ts.
 */
import { $, api, clockTime, el, errorText } from './common.ts';
import { eventText, resultText } from './readable.ts';
import type { LeaseEvent, LeasePage, Step } from './types.ts';

const EVENTS_MS = 3000;
const RECORDING_MS = 3000;

function argsText(args: unknown): string {
  if (!args || typeof args !== 'object') return '';
  const text = JSON.stringify(args);
  if (text === '{}') return '';
  return text.length > 160 ? text.slice(0, 160) + '…' : text;
}

function stepItem(step: Step): HTMLElement {
  let thumb: HTMLElement | null = null;
  if (typeof step.screenshot === 'string' && step.screenshot.indexOf('data:image/') === 0) {
    const shot = el('img', { className: 'step-shot', src: step.screenshot, alt: 'screen after step ' + step.seq, loading: 'lazy' });
    shot.addEventListener('click', () => { shot.classList.toggle('large'); });
    thumb = shot;
  }
  const outcome = step.outcome === 'error' ? 'error' + (step.code ? ' ' + step.code : '') : 'ok';
  const args = argsText(step.args);
  const result = resultText(step);
  return el('li', { 'data-tool': step.tool, 'data-actor': step.actor, 'data-seq': step.seq, className: 'step actor-' + step.actor + ' outcome-' + step.outcome }, [
    thumb || el('div', { className: 'step-shot none', text: 'no frame' }),
    el('div', { className: 'step-body' }, [
      el('div', { className: 'step-head' }, [
        el('span', { className: 'seq', text: '#' + step.seq }),
        el('span', { className: 'badge actor actor-' + step.actor, text: step.actor, title: step.principal ? 'principal: ' + step.principal : '' }),
        el('strong', { className: 'tool', text: step.tool }),
        el('span', { className: 'outcome', text: outcome }),
        el('span', { className: 'duration', text: typeof step.duration_ms === 'number' ? step.duration_ms + ' ms' : '' }),
        el('time', { datetime: step.at, text: clockTime(step.at) }),
      ]),
      args ? el('code', { className: 'args', text: args }) : null,
      result ? el('code', { className: 'result', text: '→ ' + result }) : null,
      step.note ? el('p', { className: 'note', text: step.note }) : null,
    ]),
  ]);
}

/** Starts nothing: the page calls pollEvents and pollRecording once it has set itself up. */
export function timeline(page: LeasePage): { pollEvents(): void; pollRecording(): void } {
  let eventsShown = '';
  let lastSeq = -Infinity;
  let stepCount = 0;

  function renderEvents(events: LeaseEvent[]): void {
    const last = events[events.length - 1];
    const key = events.length + '|' + (last ? last.at + last.kind : '');
    if (key === eventsShown) return;
    eventsShown = key;
    const list = $('events');
    list.textContent = '';
    // Newest first: the side panel shows what just happened without scrolling. One sentence each
    // (eventText); the raw kind stays in data-kind and the tooltip.
    for (const ev of events.slice(-200).reverse()) {
      list.appendChild(el('li', { 'data-kind': ev.kind, title: ev.kind }, [
        el('time', { datetime: ev.at, text: clockTime(ev.at), title: ev.at }),
        el('span', { className: 'event-text', text: eventText(ev) }),
      ]));
    }
    $('events-empty').hidden = events.length > 0;
  }

  function pollEvents(): void {
    api<{ events?: LeaseEvent[] } | null>('GET', page.base + '/events').then((data) => {
      renderEvents((data && data.events) || []);
    }).catch(() => { /* the lease poll reports what is wrong */ }).then(() => {
      setTimeout(pollEvents, page.ended ? EVENTS_MS * 10 : EVENTS_MS);
    });
  }

  function renderSteps(steps: Step[]): void {
    const list = $('steps');
    const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 24;
    let added = 0;
    for (const step of steps) {
      if (!(step.seq > lastSeq)) continue;    // already on the page
      list.appendChild(stepItem(step));
      lastSeq = step.seq;
      stepCount += 1;
      added += 1;
    }
    if (added && atEnd) list.scrollTop = list.scrollHeight;
    $('steps-empty').hidden = stepCount > 0;
    $('step-count').textContent = stepCount === 1 ? '1 step' : stepCount + ' steps';
  }

  function pollRecording(): void {
    // Only the steps after the last one shown (?since), and never for a tab nobody looks at.
    if (document.hidden) { setTimeout(pollRecording, RECORDING_MS); return; }
    const wasEnded = page.ended;
    api<{ steps?: Step[] } | null>('GET', page.base + '/recording' + (lastSeq >= 0 ? '?since=' + lastSeq : '')).then((data) => {
      const steps = ((data && data.steps) || []).slice().sort((a, b) => a.seq - b.seq);
      renderSteps(steps);
      $('steps-empty').textContent = 'No steps yet: tool calls on this lease appear here.';
    }).catch((err) => {
      if (!stepCount) $('steps-empty').textContent = 'No recording: ' + errorText(err);
    }).then(() => {
      // One last read after the lease ends picks up its final steps; then the timeline is complete.
      if (!wasEnded) setTimeout(pollRecording, RECORDING_MS);
    });
  }

  return { pollEvents, pollRecording };
}
