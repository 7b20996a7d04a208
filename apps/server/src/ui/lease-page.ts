/**
 * /ui/leases/<id> — one lease: the live screen large on the left, control, lease actions and
 * events beside it, the recording timeline below. Filled by /ui/lease.js.
 */
import { page } from './page.ts';

export const LEASE_HTML = page('vmhub — lease', '/ui/lease.js', `<main class="lease">
<nav class="crumbs"><a href="/ui/">← all leases</a></nav>
<div class="title-row">
<h1>Lease <span id="lease-id" class="mono"></span></h1>
<span id="lease-status" class="badge">…</span>
</div>
<dl class="facts">
<div><dt>Template</dt><dd id="lease-template"></dd></div>
<div><dt>Owner</dt><dd id="lease-owner"></dd></div>
<div><dt>Expires</dt><dd id="lease-expires"></dd></div>
</dl>
<div class="layout">
<section class="screen-col" aria-label="live screen">
<p id="banner" class="banner" role="status" hidden>You have control — the agent is paused</p>
<div class="screen-tools">
<button id="actual-size" type="button" aria-pressed="false" title="Show the screen at its actual pixels (scroll when it is larger than the page)">1:1</button>
<button id="fullscreen" type="button" title="Fill the display with the screen (Esc leaves)">Fullscreen</button>
<span id="pointer-note" class="muted"></span>
</div>
<div id="screen-box" class="screen-box">
<canvas id="screen" data-frame="0" tabindex="0" width="0" height="0" role="img" aria-label="live screen of the machine"></canvas>
<div id="pointer" class="pointer" aria-hidden="true" hidden></div>
<div id="agent-click" class="agent-click" hidden><span id="agent-click-label" class="agent-click-label"></span></div>
<p id="screen-note" class="screen-note">Waiting for the screen…</p>
</div>
<p id="input-hint" class="hint" hidden>Click the screen, then type: clicks, keys and the wheel go to the machine; Ctrl+V pastes your clipboard into it.</p>
</section>
<aside class="side">
<section class="panel">
<h2>Control</h2>
<p class="control-line"><span id="control" class="badge">…</span> <span id="control-since" class="muted"></span></p>
<label id="allow-line" class="check"><input id="allow-commands" type="checkbox"> Allow the agent's commands and files while I hold the machine</label>
<button id="takeover" type="button" class="primary" hidden>Take over</button>
<div id="handback-form" class="handback" hidden>
<label for="handback-note">Note for the agent (optional)</label>
<textarea id="handback-note" rows="3" maxlength="2000" placeholder="What you did, what it should know"></textarea>
<button id="handback" type="button" class="primary" hidden>Hand back</button>
</div>
</section>
<section id="clipboard-panel" class="panel" hidden>
<h2>Clipboard</h2>
<label for="paste-text" class="field-label">Text to paste into the machine</label>
<textarea id="paste-text" rows="3" maxlength="200000" placeholder="Paste or type text here"></textarea>
<div class="buttons">
<button id="paste" type="button" class="primary">Paste into the machine</button>
<button id="copy-out" type="button">Copy from the machine</button>
</div>
<textarea id="clipboard-text" rows="3" readonly hidden aria-label="the machine's clipboard"></textarea>
</section>
<section class="panel">
<h2>Lease</h2>
<div class="buttons">
<button id="renew" type="button">Renew</button>
<button id="release" type="button" class="danger">Release</button>
</div>
</section>
<section class="panel">
<h2>Events</h2>
<ol id="events" class="events"></ol>
<p id="events-empty" class="muted">No events yet.</p>
</section>
</aside>
</div>
<section class="panel recording" aria-label="recording">
<div class="title-row">
<h2>Recording</h2>
<span id="step-count" class="muted"></span>
<a id="download" class="button" download>Download recording</a>
</div>
<ol id="steps" class="steps"></ol>
<p id="steps-empty" class="muted">No steps yet: tool calls on this lease appear here.</p>
</section>
</main>`);
