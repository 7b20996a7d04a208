/**
 * The live view as an MCP App (docs/live-view.md, "In the chat: the MCP App"): a host that
 * supports MCP Apps (the io.modelcontextprotocol/ui extension: Claude, VS Code and others) shows
 * the machine inline under a vm_lease_create or vm_screenshot call — its screen, who drives it,
 * and a Take over button that opens the lease's page in the dashboard, where a signed-in person
 * takes over (taking control is a person's act, so it never goes through the agent's connection).
 *
 *   ui://vmhub/lease-view.html      text/html;profile=mcp-app: the View (src/ui/browser/mcp-app.ts,
 *                                   speaking the extension's postMessage JSON-RPC itself:
 *                                   ui/browser/app-channel.ts), declared on the two tools'
 *                                   `_meta.ui.resourceUri`; it loads nothing from anywhere (its CSP
 *                                   declares no domain): frames come as data
 *   vmhub://leases/{lease_id}/live  what the View reads through the host, about once a second:
 *                                   the lease's state (application/json: the lease as
 *                                   vm_lease_status shows it, who drives it, the dashboard's page
 *                                   when served over HTTP) and its screen now (image/jpeg, ≤
 *                                   LIVE_WIDTH wide; the live stream's frame while someone watches
 *                                   the lease: screen.ts, leaseFrame) — the caller's own leases
 *                                   only, like every resource (resources.ts)
 *
 * The View reads a resource rather than calling vm_screenshot: its polling is not the agent's
 * doing, so it joins no recording and counts as no agent activity.
 */
import { ResourceTemplate, type McpServer, type Tool } from '@modelcontextprotocol/server';
import { asVmhubError, type ToolName } from '@vmhub/core';
import { callExtra, type CallExtra } from '@vmhub/core/router';
import { principalOf } from './http/principal.ts';
import { leaseView } from './leases/view.ts';
import { controlView } from './live/control.ts';
import { leaseFrame } from './live/screen.ts';
import { ownLease } from './resources.ts';
import type { Runtime } from './runtime.ts';
import { MCP_APP_HTML } from './ui/index.ts';

export const APP_URI = 'ui://vmhub/lease-view.html';
/** MCP Apps' MIME type for a View (ext-apps' RESOURCE_MIME_TYPE). */
export const APP_MIME = 'text/html;profile=mcp-app';
/** The tools whose results the View shows. */
export const APP_TOOLS: readonly ToolName[] = ['vm_lease_create', 'vm_screenshot'];
/** The View's frame width: its inline box is narrower than a screen. */
export const LIVE_WIDTH = 1024;
/** A frame read gets this long (the lease's session is opened if need be). */
const FRAME_MS = 15_000;
/** A live-stream capture this recent is the View's frame (the stream captures every 33 ms). */
const STREAM_FRESH_MS = 100;
/** What the View asks of its host: no domain to load from or connect to; a border around it. */
const VIEW_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };

/** MCP Apps' client capability: the host renders Views of this MIME type. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

function rendersViews(caps: { extensions?: Record<string, unknown> } | undefined): boolean {
  const ext = caps?.extensions?.[UI_EXTENSION] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ext?.mimeTypes) && ext.mimeTypes.includes(APP_MIME);
}

/** The lease's dashboard page, where the request came over HTTP (a stdio server has none). */
function dashboardPage(extra: { requestInfo?: { headers?: Record<string, string | string[] | undefined> } }, leaseId: string): string | undefined {
  const headers = extra.requestInfo?.headers;
  const host = headers?.host;
  if (typeof host !== 'string' || !/^[A-Za-z0-9.:[\]-]{1,255}$/.test(host)) return undefined;
  const proto = headers?.['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${host}/ui/leases/${leaseId}`;
}

/**
 * tools/list for this request (the router's RegisterOptions.listTools): the two tools name the
 * View (`_meta.ui.resourceUri`, MCP Apps 2026-01-26) for a host that says it renders Views
 * (capabilities.extensions["io.modelcontextprotocol/ui"] with our MIME type), as the extension
 * asks; other clients get the router's list unchanged and pay no byte of tools/list for a View
 * they cannot show. The capabilities are the request's own on 2026-07-28 (its `_meta` envelope),
 * the connection's `initialize` on 2025 (CallExtra.client).
 */
export function appToolList(tools: Tool[], extra: CallExtra): Tool[] {
  if (!rendersViews(extra.client?.capabilities)) return tools;
  const ui = { ui: { resourceUri: APP_URI } };
  return tools.map((t) => (APP_TOOLS.includes(t.name as ToolName) ? { ...t, _meta: { ...t._meta, ...ui } } : t));
}

/** The View and the live resource it reads, on this session. */
export function registerMcpApp(mcp: McpServer, runtime: () => Promise<Runtime>): void {
  mcp.registerResource('lease-view', APP_URI, {
    title: 'The machine, live',
    description: 'An MCP App: the lease\'s screen, who drives it, and a button to take over in the vmhub dashboard.',
    mimeType: APP_MIME,
    _meta: VIEW_META,
  }, () => ({ contents: [{ uri: APP_URI, mimeType: APP_MIME, text: MCP_APP_HTML, _meta: VIEW_META }] }));

  mcp.registerResource('lease-live', new ResourceTemplate('vmhub://leases/{lease_id}/live', { list: undefined }), {
    title: 'A lease, now',
    description: 'One of your leases now: its state (JSON) and its screen (JPEG), as the MCP App shows them.',
  }, async (uri, vars, ctx) => {
    const rt = await runtime();
    const extra = callExtra(mcp, ctx);
    const principal = principalOf(extra);
    const row = await ownLease(rt, vars.lease_id, principal, uri.href);
    const { control, control_since } = controlView(row, await rt.store.heldBy(row.id));
    const state: Record<string, unknown> = { ...leaseView(row), control, ...(control_since ? { control_since } : {}) };
    const page = dashboardPage(extra, row.id);
    if (page) state.dashboard = page;
    const contents: Array<{ uri: string; mimeType: string; blob: string }> = [];
    if (row.status === 'ready') {
      try {
        const shot = await leaseFrame(rt, row.id, { format: 'jpeg', maxWidth: LIVE_WIDTH, maxAgeMs: STREAM_FRESH_MS, timeoutMs: FRAME_MS, principal });
        if (shot) {
          state.screen = { width: shot.screen.width, height: shot.screen.height };
          contents.push({ uri: `vmhub://leases/${row.id}/live#screen`, mimeType: shot.mime, blob: shot.data.toString('base64') });
        } else {
          state.screen_error = { code: 'CAPABILITY_UNAVAILABLE', message: 'this machine has no screen' };
        }
      } catch (err) {
        const e = asVmhubError(err);
        state.screen_error = { code: e.code, message: e.message };
      }
    }
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(state) }, ...contents] };
  });
}
