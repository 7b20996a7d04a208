/** /ui/app.css — one calm stylesheet for both pages: system fonts, neutral greys, colour only for state. */
export const APP_CSS = `
:root {
  --bg: #f5f6f8; --panel: #ffffff; --line: #dde1e6; --text: #1f2328; --muted: #5f6b7a;
  --accent: #2f5fd0; --accent-text: #ffffff;
  --ok: #1a7f37; --ok-bg: #dcf5e3; --busy: #1f5fae; --busy-bg: #dde9fa;
  --warn: #8a5300; --warn-bg: #fff1cc; --bad: #b42318; --bad-bg: #fde4e1; --idle: #57606a; --idle-bg: #eaeef2;
  color-scheme: light;
}
* { box-sizing: border-box; }
html, body { margin: 0; }
body { background: var(--bg); color: var(--text); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); }
code, .mono { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 0.92em; }
[hidden] { display: none !important; }
.muted { color: var(--muted); }

.top { display: flex; align-items: center; justify-content: space-between; padding: 10px 24px; background: var(--panel); border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; font-size: 18px; color: var(--text); text-decoration: none; letter-spacing: 0.02em; }
.principal { color: var(--muted); font-size: 14px; }
.principal::before { content: "signed in as "; }

main { max-width: 1480px; margin: 0 auto; padding: 16px 24px 40px; }
h1 { font-size: 22px; margin: 0; font-weight: 600; }
h2 { font-size: 15px; margin: 0 0 10px; font-weight: 600; }
.title-row { display: flex; align-items: center; gap: 12px; margin: 4px 0 14px; }
.title-row .button { margin-left: auto; }
.crumbs { margin-bottom: 6px; font-size: 14px; }
.crumbs a { text-decoration: none; }

.message { max-width: 1480px; margin: 12px auto 0; padding: 10px 14px; border-radius: 6px; background: var(--idle-bg); }
.message.error { background: var(--bad-bg); color: var(--bad); }

.badge { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 13px; font-weight: 600; background: var(--idle-bg); color: var(--idle); }
.status-ready { background: var(--ok-bg); color: var(--ok); }
.status-provisioning, .status-starting { background: var(--busy-bg); color: var(--busy); }
.status-releasing { background: var(--warn-bg); color: var(--warn); }
.status-failed { background: var(--bad-bg); color: var(--bad); }
.control-agent { background: var(--busy-bg); color: var(--busy); }
.control-human { background: var(--warn-bg); color: var(--warn); }

/* lease list */
.leases { width: 100%; border-collapse: collapse; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.leases th { text-align: left; font-size: 13px; font-weight: 600; color: var(--muted); padding: 8px 12px; border-bottom: 1px solid var(--line); background: #fafbfc; }
.leases td { padding: 8px 12px; border-bottom: 1px solid var(--line); vertical-align: middle; }
.leases tbody tr { cursor: pointer; }
.leases tbody tr:hover { background: #f8fafd; }
.leases tbody tr:last-child td { border-bottom: 0; }
.leases tr.ended { color: var(--muted); }
.leases .thumb-cell { width: 176px; }
.thumb { display: block; width: 160px; height: 100px; object-fit: contain; background: #20242a; border-radius: 4px; }
.thumb.placeholder { display: flex; align-items: center; justify-content: center; color: #9aa4b2; font-size: 13px; }
.lease-link { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 600; }
.empty { padding: 32px; text-align: center; color: var(--muted); background: var(--panel); border: 1px dashed var(--line); border-radius: 8px; }

/* lease page */
.facts { display: flex; flex-wrap: wrap; gap: 8px 32px; margin: 0 0 16px; }
.facts div { display: flex; gap: 8px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr) 320px; gap: 20px; align-items: start; }
@media (max-width: 980px) { .layout { grid-template-columns: minmax(0, 1fr); } }

.banner { margin: 0 0 10px; padding: 10px 14px; border-radius: 6px; background: var(--warn-bg); color: var(--warn); font-weight: 600; border: 1px solid #f0d48a; }
.screen-box { position: relative; background: #20242a; border-radius: 8px; overflow: hidden; min-height: 240px; border: 3px solid transparent; }
.screen-box.human { border-color: #e0a526; }
#screen { display: block; width: 100%; height: auto; outline: none; user-select: none; }
#screen:not([src]) { min-height: 400px; }
.screen-box.human #screen { cursor: crosshair; }
.screen-box.human #screen:focus { box-shadow: inset 0 0 0 2px #e0a526; }
.screen-note { position: absolute; left: 12px; bottom: 10px; margin: 0; padding: 4px 10px; border-radius: 4px; background: rgba(0, 0, 0, 0.6); color: #fff; font-size: 13px; }
.hint { margin: 8px 0 0; color: var(--muted); font-size: 14px; }
.screen-tools { display: flex; align-items: center; gap: 8px; margin: 0 0 8px; font-size: 13px; }
.screen-tools button { padding: 3px 10px; font-size: 13px; }
.screen-tools button[aria-pressed="true"] { background: var(--busy-bg); border-color: var(--busy); }
.screen-box.actual { overflow: auto; max-height: 85vh; }
.screen-box.actual #screen { max-width: none; }
.screen-box:fullscreen { overflow: auto; max-height: none; border: 0; border-radius: 0; background: #000; }
.screen-box:fullscreen #screen { margin: 0 auto; }
/* The pointer: an arrow whose tip is the point; the agent's last click: a ring centred on it. */
.pointer { position: absolute; width: 14px; height: 20px; margin: 0; pointer-events: none; background: #fff; clip-path: polygon(0 0, 0 100%, 28% 76%, 48% 100%, 62% 93%, 43% 70%, 80% 70%); filter: drop-shadow(0 0 1px #000) drop-shadow(0 0 1px #000); }
.pointer[data-source="agent"], .pointer[data-source="human"] { opacity: 0.7; }
.agent-click { position: absolute; width: 26px; height: 26px; margin: -13px 0 0 -13px; border: 3px solid #2f5fd0; border-radius: 50%; box-shadow: 0 0 0 2px rgba(255, 255, 255, 0.8); pointer-events: none; transition: opacity 1s; }
.agent-click.stale { opacity: 0.35; }
.agent-click-label { position: absolute; left: 26px; top: -6px; white-space: nowrap; padding: 1px 6px; border-radius: 4px; background: rgba(47, 95, 208, 0.9); color: #fff; font-size: 12px; }
.field-label { display: block; font-size: 13px; color: var(--muted); margin: 0 0 4px; }
#clipboard-panel textarea { width: 100%; margin: 0 0 8px; }

.side { display: flex; flex-direction: column; gap: 16px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; }
.control-line { margin: 0 0 12px; }
.handback { display: flex; flex-direction: column; gap: 6px; }
.handback label { font-size: 13px; color: var(--muted); }
.check { display: block; font-size: 13px; margin: 0 0 8px; }
textarea { font: inherit; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; resize: vertical; }
.buttons { display: flex; gap: 8px; }

button, .button { font: inherit; font-size: 14px; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--line); background: var(--panel); color: var(--text); cursor: pointer; text-decoration: none; display: inline-block; }
button:hover, .button:hover { background: #f0f2f5; }
button:disabled { opacity: 0.5; cursor: default; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); }
button.primary:hover { background: #274fae; }
button.danger { color: var(--bad); border-color: #f1b5ae; }
button.danger:hover { background: var(--bad-bg); }
button:focus-visible, .button:focus-visible, a:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }

.events { list-style: none; margin: 0; padding: 0; max-height: 360px; overflow: auto; font-size: 13px; }
.events li { display: grid; grid-template-columns: auto 1fr; gap: 0 8px; padding: 5px 0; border-bottom: 1px solid var(--line); }
.events li:last-child { border-bottom: 0; }
.events time { color: var(--muted); }
.events .event-text { overflow-wrap: anywhere; }

.recording { margin-top: 20px; }
.steps { list-style: none; margin: 0; padding: 0; max-height: 560px; overflow: auto; }
.step { display: flex; gap: 12px; padding: 8px 0; border-bottom: 1px solid var(--line); }
.step:last-child { border-bottom: 0; }
.step-shot { flex: none; width: 160px; height: 100px; object-fit: contain; background: #20242a; border-radius: 4px; cursor: zoom-in; }
.step-shot.large { width: 640px; height: auto; cursor: zoom-out; }
.step-shot.none { display: flex; align-items: center; justify-content: center; color: #9aa4b2; font-size: 12px; cursor: default; }
.step-body { min-width: 0; font-size: 14px; }
.step-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 10px; }
.step-head .seq, .step-head time, .step-head .duration { color: var(--muted); font-size: 13px; }
.actor-agent.badge { background: var(--busy-bg); color: var(--busy); }
.actor-human.badge { background: var(--warn-bg); color: var(--warn); }
.outcome-ok .outcome { color: var(--ok); }
.outcome-error .outcome { color: var(--bad); font-weight: 600; }
.args { display: block; margin-top: 4px; color: var(--muted); overflow-wrap: anywhere; }
.step .result { display: block; margin-top: 2px; color: var(--text); overflow-wrap: anywhere; white-space: pre-wrap; }
.outcome-error .result { color: var(--bad); }
.note { margin: 4px 0 0; padding: 4px 8px; border-left: 3px solid #e0a526; background: #fffaf0; }
`;
