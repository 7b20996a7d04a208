/**
 * A lease's recording as one self-contained HTML file: inline CSS, every image a data URL, no
 * script and no external URL, so it opens anywhere (a mail attachment, an archive) as it is.
 */
import type { LeaseInfo } from '@vmhub/core';
import type { Step } from './recorder.ts';

const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1d1d1f;background:#fafafa}
h1{font-size:1.3rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
dt{color:#666}ol{list-style:none;padding:0}li{background:#fff;border:1px solid #ddd;border-radius:6px;margin:.8rem 0;padding:.8rem}
li.human{border-left:4px solid #c47f00}li.agent{border-left:4px solid #2b6cb0}li.error .outcome{color:#b00020}
.head{display:flex;gap:1rem;flex-wrap:wrap;align-items:baseline}.tool{font-weight:600}.meta{color:#666}
pre{background:#f3f3f3;padding:.4rem;overflow:auto;white-space:pre-wrap;word-break:break-all;margin:.4rem 0}
.result{background:#eef6ee}.note{background:#fff7e0;padding:.4rem;border-radius:4px}img{max-width:100%;border:1px solid #ccc;margin-top:.4rem}
`;

export function recordingHtml(lease: LeaseInfo, steps: Step[]): string {
  const items = steps.map((s) => `<li class="${s.actor} ${s.outcome}" data-tool="${esc(s.tool)}">
<div class="head"><span class="seq">#${s.seq}</span><span class="actor">${s.actor}${s.principal ? ` (${esc(s.principal)})` : ''}</span><span class="tool">${esc(s.tool)}</span><span class="outcome">${s.outcome}${s.code ? ` ${esc(s.code)}` : ''}</span><span class="meta">${esc(s.at)} · ${s.duration_ms} ms</span></div>
${Object.keys(s.args).length ? `<pre>${esc(JSON.stringify(s.args, null, 2))}</pre>` : ''}${s.result && Object.keys(s.result).length ? `<pre class="result">→ ${esc(JSON.stringify(s.result, null, 2))}</pre>` : ''}${s.note !== undefined ? `<p class="note">${esc(s.note)}</p>` : ''}${s.screenshot?.startsWith('data:image/') ? `<img alt="screen after step ${s.seq}" src="${esc(s.screenshot)}">` : ''}
</li>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<title>vmhub recording ${esc(lease.lease_id.slice(0, 8))}</title><style>${CSS}</style></head>
<body><h1>vmhub recording: lease ${esc(lease.lease_id)}</h1>
<dl><dt>template</dt><dd>${esc(lease.template)}</dd><dt>owner</dt><dd>${esc(lease.owner ?? '—')}</dd><dt>status</dt><dd>${esc(lease.status)}</dd><dt>created</dt><dd>${esc(lease.created_at)}</dd><dt>steps</dt><dd>${steps.length}</dd></dl>
<ol id="steps">
${items}
</ol></body></html>
`;
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
