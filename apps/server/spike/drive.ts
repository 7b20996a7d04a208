/**
 * Spike driver: v2 client (2026-07-28 via server/discover, and its default legacy mode) and the v1
 * client (1.32.2) against the v2 spike server over stdio and stateless Streamable HTTP; then one
 * v2 client spread over two server processes; then round-trip timing of a trivial call.
 *
 *   source scripts/env.sh && cd apps/server && node spike/drive.ts [--calls 200]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2Stdio } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport as V1Stdio } from '@modelcontextprotocol/sdk/client/stdio.js';

const here = dirname(fileURLToPath(import.meta.url));
const CALLS = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 200;
const logFile = join(mkdtempSync(join(tmpdir(), 'spike-')), 'server.log');
const children: ChildProcess[] = [];

async function startHttp(extraEnv: Record<string, string> = {}): Promise<{ url: URL; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(here, 'serve-http.ts')], { env: { ...process.env, PORT: '0', SPIKE_LOG: logFile, ...extraEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => { buf += d; const m = /LISTENING (\d+)/.exec(buf); if (m) resolve(Number(m[1])); });
    child.on('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), child };
}

type Kind = 'v2-auto' | 'v2-default' | 'v1';
type AnyClient = { connect(t: unknown): Promise<void>; close(): Promise<void>; listTools(): Promise<{ tools: { name: string }[] }>; callTool(...a: unknown[]): Promise<unknown>; getServerVersion(): unknown };

function makeClient(kind: Kind): { client: AnyClient; version: () => string } {
  if (kind === 'v1') {
    const c = new V1Client({ name: 'drive-v1', version: '1.32.2' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } as never });
    return { client: c as unknown as AnyClient, version: () => (c.transport as { protocolVersion?: string } | undefined)?.protocolVersion ?? (c as unknown as { _negotiatedProtocolVersion?: string })._negotiatedProtocolVersion ?? '2025-11-25 (v1 LATEST)' };
  }
  const c = new V2Client({ name: `drive-${kind}`, version: '2.4.0' }, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } as never,
    ...(kind === 'v2-auto' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
  });
  return { client: c as unknown as AnyClient, version: () => c.getNegotiatedProtocolVersion() ?? '?' };
}

async function callTool(kind: Kind, client: AnyClient, params: Record<string, unknown>, options: Record<string, unknown>): Promise<any> {
  // v1: callTool(params, resultSchema?, options); v2: callTool(params, options).
  return kind === 'v1' ? client.callTool(params, undefined, options) : client.callTool(params, options);
}

function serverEvents(tag: string): string[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.tag === tag).map((e) => e.event + (e.after_ms !== undefined ? `@${e.after_ms}ms` : ''));
}

async function scenario(kind: Kind, transport: 'stdio' | 'http', url?: URL): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { client: kind, transport };
  const { client, version } = makeClient(kind);
  const headers = { authorization: 'Bearer alice' };
  const t = transport === 'stdio'
    ? (kind === 'v1' ? new V1Stdio({ command: process.execPath, args: [join(here, 'serve-stdio.ts')], env: { ...process.env, SPIKE_LOG: logFile } as Record<string, string> }) : new V2Stdio({ command: process.execPath, args: [join(here, 'serve-stdio.ts')], env: { ...process.env, SPIKE_LOG: logFile } as Record<string, string> }))
    : (kind === 'v1' ? new V1Http(url!, { requestInit: { headers } }) : new V2Http(url!, { requestInit: { headers } }));
  try {
    const t0 = performance.now();
    await client.connect(t);
    out.connect_ms = Math.round(performance.now() - t0);
    out.protocol = version();
    out.tools = (await client.listTools()).tools.map((x) => x.name).join(',');
    // Tool result + progress.
    const progress: number[] = [];
    const r = await callTool(kind, client, { name: 'render', arguments: { steps: 3, step_ms: 20 } }, { onprogress: (p: { progress: number }) => progress.push(p.progress) });
    out.structured_ok = r.structuredContent?.steps === 3;
    out.image_ok = r.content?.some((c: { type: string; mimeType?: string }) => c.type === 'image' && c.mimeType === 'image/png');
    out.progress = progress.join(',');
    out.who = r.structuredContent?.who;
    // Cancellation: abort after 400 ms; did the client reject and did the server's handler see it?
    const tag = `${kind}-${transport}-${Date.now()}`;
    const ac = new AbortController();
    const started = performance.now();
    setTimeout(() => ac.abort(new Error('spike cancel')), 400);
    try {
      await callTool(kind, client, { name: 'wait', arguments: { tag, seconds: 8 } }, { signal: ac.signal, onprogress: () => undefined });
      out.cancel_client = 'resolved (not cancelled)';
    } catch (e) {
      out.cancel_client = `rejected after ${Math.round(performance.now() - started)} ms: ${(e as Error).message.slice(0, 60)}`;
    }
    for (let i = 0; i < 30 && !serverEvents(tag).some((e) => e !== 'started'); i++) await new Promise((r) => setTimeout(r, 100));
    out.cancel_server = serverEvents(tag).join(' ') || 'nothing logged';
  } catch (e) {
    out.error = (e as Error).stack?.split('\n').slice(0, 3).join(' | ');
  } finally {
    await client.close().catch(() => undefined);
  }
  return out;
}

/** One v2 client whose requests go alternately to server A and server B (a fetch that picks the URL). */
async function twoServers(kind: Kind, a: URL, b: URL): Promise<Record<string, unknown>> {
  let n = 0;
  const targets: string[] = [];
  const fetchAlternating = (input: string | URL | Request, init?: RequestInit) => {
    const to = n++ % 2 === 0 ? a : b;
    targets.push(to.port);
    return fetch(to, init);
  };
  const { client, version } = makeClient(kind);
  const headers = { authorization: 'Bearer bob' };
  const t = kind === 'v1' ? new V1Http(a, { requestInit: { headers }, fetch: fetchAlternating as never }) : new V2Http(a, { requestInit: { headers }, fetch: fetchAlternating as never });
  const out: Record<string, unknown> = { client: kind, transport: 'http A/B alternating' };
  try {
    await client.connect(t);
    out.protocol = version();
    const pids: number[] = [];
    const errors: string[] = [];
    for (let i = 0; i < 4; i++) {
      try {
        const r = await callTool(kind, client, { name: 'render', arguments: { steps: 1, step_ms: 0 } }, {});
        pids.push(r.structuredContent?.who?.pid);
        if (i === 0) out.who_first = r.structuredContent?.who;
      } catch (e) { errors.push((e as Error).message.slice(0, 80)); }
    }
    out.answered_by_pids = pids.join(',');
    out.distinct_servers = new Set(pids).size;
    out.http_requests_to_ports = targets.join(',');
    if (errors.length) out.errors = errors;
  } catch (e) {
    out.error = (e as Error).message;
  } finally {
    await client.close().catch(() => undefined);
  }
  return out;
}

async function timing(kind: Kind, url: URL, label: string): Promise<Record<string, unknown>> {
  const { client, version } = makeClient(kind);
  const t = kind === 'v1' ? new V1Http(url, { requestInit: { headers: { authorization: 'Bearer t' } } }) : new V2Http(url, { requestInit: { headers: { authorization: 'Bearer t' } } });
  await client.connect(t);
  for (let i = 0; i < 20; i++) await callTool(kind, client, { name: 'echo', arguments: { n: i } }, {});
  const ms: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const s = performance.now();
    await callTool(kind, client, { name: 'echo', arguments: { n: i } }, {});
    ms.push(performance.now() - s);
  }
  const protocol = version();
  await client.close().catch(() => undefined);
  ms.sort((x, y) => x - y);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(2);
  return { server: label, client: kind, protocol, calls: CALLS, p50_ms: q(0.5), p90_ms: q(0.9), p99_ms: q(0.99) };
}

const report = (title: string, rows: Record<string, unknown>[]) => { console.log(`\n## ${title}`); for (const r of rows) console.log(JSON.stringify(r)); };

try {
  const A = await startHttp();
  const B = await startHttp();
  const kinds: Kind[] = ['v2-auto', 'v2-default', 'v1'];
  const rows: Record<string, unknown>[] = [];
  for (const k of kinds) rows.push(await scenario(k, 'stdio'));
  for (const k of kinds) rows.push(await scenario(k, 'http', A.url));
  report('matrix (tool result, progress, cancellation)', rows);
  const S = await startHttp({ SPIKE_LEGACY: 'sessionful' });
  const srows: Record<string, unknown>[] = [];
  for (const k of kinds) srows.push(await scenario(k, 'http', S.url));
  report('HTTP, 2025 clients routed (isLegacyRequest) to a sessionful v2 transport; 2026-07-28 stateless', srows);
  report('two server processes, no shared state', [await twoServers('v2-auto', A.url, B.url), await twoServers('v2-default', A.url, B.url), await twoServers('v1', A.url, B.url)]);
  if (!process.argv.includes('--no-timing')) {
    const V1 = await startHttp({ SPIKE_V1: '1' });
    const V1S = await startHttp({ SPIKE_V1: '1', SPIKE_V1_SESSION: '1' });
    report(`round trip, tools/call echo, ${CALLS} calls, HTTP on 127.0.0.1`, [
      await timing('v2-auto', A.url, 'v2 createMcpHandler'),
      await timing('v2-default', A.url, 'v2 createMcpHandler (legacy leg)'),
      await timing('v1', A.url, 'v2 createMcpHandler (legacy leg)'),
      await timing('v1', S.url, 'v2, legacy leg sessionful (isLegacyRequest)'),
      await timing('v2-auto', S.url, 'v2, legacy leg sessionful (modern request)'),
      await timing('v1', V1.url, 'v1 stateless per-request McpServer'),
      await timing('v1', V1S.url, 'v1 sessionful (as vmhub today)'),
    ]);
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
}
