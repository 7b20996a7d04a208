/**
 * The lease page's remote-desktop comforts: fullscreen and a 1:1 scale, the pointer and the
 * agent's last click drawn over the screen (polled from GET …/pointer), and the clipboard — paste
 * into the machine (the box, or Ctrl+V on the screen) and copy its clipboard out
 * (GET …/clipboard), only while in control. Shares the page's state (types.ts LeasePage).
 */
import { $, api, clockTime, errorText, relTime, say, type ApiError } from './common.ts';
import { boxPoint } from './readable.ts';
import type { AgentClick, LeasePage, PointerMark } from './types.ts';

const POINTER_MS = 1000;
const CLICK_FRESH_MS = 10000;   // the agent's click marker fades after this
const SOURCES: Record<string, string> = {
  machine: 'the machine\'s pointer',
  agent: 'where the agent last moved the pointer (this machine cannot report its pointer)',
  human: 'where you last moved the pointer (this machine cannot report its pointer)',
};

/** What the tools use of the lease page's own code (lease.ts). */
export interface ScreenToolsHooks {
  inControl(): boolean;
  flushText(): void;
  scheduleFrame(ms: number): void;
  refreshLease(): Promise<void>;
}

/** Sets the tools up on the page; the page calls pollPointer once it has started its own polls. */
export function screenTools(page: LeasePage, hooks: ScreenToolsHooks): { layoutScreen(): void; pollPointer(): void } {
  const screen = page.screen;
  const marks: { pointer: PointerMark | null; agentClick: AgentClick | null } = { pointer: null, agentClick: null };

  // ---- fullscreen and 1:1 ----

  function fullscreenNow(): boolean { return document.fullscreenElement === $('screen-box'); }

  // The image's CSS size: the column's width (fit), the screen's own pixels (1:1), or in fullscreen
  // as large as the display allows at the screen's aspect. Clicks map through the image's box, so
  // the box is always exactly the image (never letterboxed).
  function layoutScreen(): void {
    const box = $('screen-box');
    const shown = page.shown;
    box.classList.toggle('actual', page.actualSize);
    if (page.actualSize && shown && shown.screenWidth > 0) {
      screen.style.width = shown.screenWidth + 'px';
    } else if (fullscreenNow() && shown && shown.screenWidth > 0 && shown.screenHeight > 0) {
      const fit = Math.min(box.clientWidth / shown.screenWidth, box.clientHeight / shown.screenHeight);
      screen.style.width = Math.floor(shown.screenWidth * fit) + 'px';
    } else {
      screen.style.width = '';
    }
    drawMarks();
  }

  $('actual-size').addEventListener('click', () => {
    page.actualSize = !page.actualSize;
    const button = $('actual-size');
    button.setAttribute('aria-pressed', String(page.actualSize));
    button.textContent = page.actualSize ? 'Fit' : '1:1';
    button.title = page.actualSize ? 'Fit the screen to the page' : 'Show the screen at its actual pixels (scroll when it is larger than the page)';
    layoutScreen();
    hooks.scheduleFrame(0);   // a frame at the new size (1:1 asks for the screen's full width)
  });

  $('fullscreen').addEventListener('click', () => {
    const box = $('screen-box');
    if (fullscreenNow()) { void document.exitFullscreen(); return; }
    if (!box.requestFullscreen) { say('This browser cannot show an element fullscreen.', 'error'); return; }
    box.requestFullscreen().then(() => { screen.focus(); }).catch((err: Error) => { say('Fullscreen refused: ' + err.message, 'error'); });
  });

  document.addEventListener('fullscreenchange', () => {
    $('fullscreen').textContent = fullscreenNow() ? 'Exit fullscreen' : 'Fullscreen';
    layoutScreen();
    hooks.scheduleFrame(0);
  });
  window.addEventListener('resize', layoutScreen);

  // ---- the pointer and the agent's last click ----

  function place(node: HTMLElement, x: number, y: number): void {
    const at = boxPoint(x, y, page.shown, { left: screen.offsetLeft, top: screen.offsetTop, width: screen.offsetWidth, height: screen.offsetHeight });
    node.hidden = !at;
    if (!at) return;
    node.style.left = at.left + 'px';
    node.style.top = at.top + 'px';
    node.setAttribute('data-x', String(x));
    node.setAttribute('data-y', String(y));
  }

  function drawMarks(): void {
    const p = marks.pointer;
    if (p) {
      place($('pointer'), p.x, p.y);
      $('pointer').setAttribute('data-source', p.source);
      $('pointer').title = Object.hasOwn(SOURCES, p.source) ? SOURCES[p.source] : '';
      $('pointer-note').textContent = p.source === 'machine' ? 'pointer: the machine\'s' : 'pointer: last moved by ' + (p.source === 'agent' ? 'the agent' : 'you') + ' (the machine cannot report it)';
    } else {
      $('pointer').hidden = true;
    }
    const c = marks.agentClick;
    if (c) {
      place($('agent-click'), c.x, c.y);
      const age = Date.now() - Date.parse(c.at);
      $('agent-click').classList.toggle('stale', !(age < CLICK_FRESH_MS));
      $('agent-click').setAttribute('data-at', c.at);
      $('agent-click-label').textContent = 'agent clicked ' + clockTime(c.at);
      $('agent-click').title = 'the agent\'s last click, at ' + c.x + ', ' + c.y + ' (' + relTime(c.at) + ')';
    } else {
      $('agent-click').hidden = true;
    }
  }

  function pollPointer(): void {
    if (document.hidden || page.ended || !page.lease || page.lease.status !== 'ready' || !page.shown) { setTimeout(pollPointer, POINTER_MS); return; }
    api<{ pointer?: PointerMark | null; agent_click?: AgentClick | null } | null>('GET', page.base + '/pointer').then((r) => {
      marks.pointer = r && r.pointer ? r.pointer : null;
      marks.agentClick = r && r.agent_click ? r.agent_click : null;
      drawMarks();
    }).catch(() => { /* the lease poll reports what is wrong */ }).then(() => {
      setTimeout(pollPointer, POINTER_MS);
    });
  }

  // ---- the clipboard (only while in control, like other input) ----

  // In order with the typed text and clicks before it; unlike the page's send(), the caller sees a failure.
  function pasteText(text: string): Promise<unknown> {
    hooks.flushText();
    const done = page.inputs.then(() => api('POST', page.base + '/input', { type: 'paste', text }));
    page.inputs = done.catch(() => { /* reported by the caller */ });
    return done;
  }

  // A button's work: disabled meanwhile, a failure said on the message line (kept, unlike act()).
  function busy(button: HTMLButtonElement, work: () => Promise<unknown>): Promise<void> {
    button.disabled = true;
    return work().catch((err: ApiError) => {
      say(errorText(err), 'error');
      if (err.code === 'NOT_IN_CONTROL') void hooks.refreshLease();
    }).then(() => { button.disabled = false; });
  }

  $('paste').addEventListener('click', () => {
    const text = $<HTMLTextAreaElement>('paste-text').value;
    if (!text) { say('Nothing to paste: put the text in the box first.', 'error'); return; }
    void busy($<HTMLButtonElement>('paste'), () => pasteText(text).then(() => {
      $<HTMLTextAreaElement>('paste-text').value = '';
      say('Pasted ' + text.length + ' characters into the machine.');
      screen.focus();
    }));
  });

  // Ctrl+V on the screen (the keydown lets the browser's paste through): the person's clipboard.
  // A paste outside an editable field targets the selection or the body, so it is caught on the document.
  document.addEventListener('paste', (e) => {
    if (!hooks.inControl() || document.activeElement !== screen) return;
    e.preventDefault();
    const text = e.clipboardData ? e.clipboardData.getData('text/plain') : '';
    if (!text) { say('Your clipboard holds no text to paste.', 'error'); return; }
    pasteText(text).catch((err) => { say(errorText(err), 'error'); });
  });

  $('copy-out').addEventListener('click', () => {
    void busy($<HTMLButtonElement>('copy-out'), () => api<{ text?: unknown } | null>('GET', page.base + '/clipboard').then((r) => {
      const text = (r && typeof r.text === 'string') ? r.text : '';
      const out = $<HTMLTextAreaElement>('clipboard-text');
      out.value = text;
      out.hidden = false;
      out.focus();
      out.select();
      if (!text) return say('The machine\'s clipboard is empty.');
      // Straight into this computer's clipboard where the browser allows it (https or localhost).
      if (navigator.clipboard && navigator.clipboard.writeText) {
        return navigator.clipboard.writeText(text).then(() => { say('Copied the machine\'s clipboard (' + text.length + ' characters).'); },
          () => { say('The machine\'s clipboard is in the box, selected: press Ctrl+C to copy it.'); });
      }
      say('The machine\'s clipboard is in the box, selected: press Ctrl+C to copy it.');
    }));
  });

  return { layoutScreen, pollPointer };
}
