/**
 * The MCP App's HTML (ui://vmhub/lease-view.html, src/mcp-app.ts): one self-contained document —
 * the View's script (bundled from ui/browser/mcp-app.ts) and its style inline, since the host
 * renders it in a sandboxed iframe whose CSP lets it load nothing from anywhere.
 */
import { MCP_APP_JS } from './assets.generated.ts';

const STYLE = `
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #fff; }
.bar { display: flex; align-items: center; gap: 10px; padding: 6px 10px; border-bottom: 1px solid #dde1e6; }
.bar .grow { flex: 1; }
.label { color: #5f6b7a; }
body[data-control="human"] #control { color: #8a5300; font-weight: 600; }
button { font: inherit; padding: 3px 12px; border: 1px solid #2f5fd0; border-radius: 6px; background: #2f5fd0; color: #fff; cursor: pointer; }
button:disabled { background: #eaeef2; color: #5f6b7a; border-color: #dde1e6; cursor: default; }
#screen { display: block; width: 100%; height: auto; background: #111; min-height: 40px; }
#note { margin: 6px 10px; color: #5f6b7a; }
#note:empty { display: none; }
`;

export const MCP_APP_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vmhub — the machine, live</title>
<style>${STYLE}</style>
</head>
<body>
<div class="bar">
<span><span class="label">status</span> <span id="status">…</span></span>
<span><span class="label">control</span> <span id="control">…</span></span>
<span class="grow"></span>
<button id="takeover" type="button" disabled>Take over</button>
</div>
<img id="screen" alt="the machine's screen" data-frame="0">
<p id="note">Waiting for the lease…</p>
<script>${MCP_APP_JS.replace(/<\/(script)/gi, '<\\/$1')}</script>
</body>
</html>
`;
