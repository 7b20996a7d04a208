/**
 * Spike driver for router-serve.ts (vmhub's router on the SDK v2 server): v2 client at 2026-07-28
 * (versionNegotiation auto), v2 client in its default 2025 mode, v1 client; stdio and HTTP.
 *   source scripts/env.sh && cd apps/server && node spike/router-drive.ts
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
const logFile = join(mkdtempSync(join(tmpdir(), 'spike-router-')), 'server.log');
const env = { ...process.env, SPIKE_LOG: logFile } as Record<string, string>;
const children: ChildProcess[] = [];
const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } as never;
type Kind = 'v2-auto' | 'v2-default' | 'v1';

async function startHttp(): Promise<URL> {
  const child = spawn(process.execPath, [join(here, 'router-serve.ts'), 'http'], { env: { ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => { buf += d; const m = /LISTENING (\d+)/.exec(buf); if (m) resolve(Number(m[1])); });
    child.on('exit', (c) => reject(new Error(`router server exited ${c}`)));
  });
  return new URL(`http://127.0.0.1:${port}/mcp`);
}

const events = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

async function run(kind: Kind, transport: 'stdio' | 'http', url?: URL): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { client: kind, transport };
  const client: any = kind === 'v1' ? new V1Client({ name: 'agent-v1', version: '1' }, { capabilities: UI }) : new V2Client({ name: `agent-${kind}`, version: '2' }, { capabilities: UI, ...(kind === 'v2-auto' ? { versionNegotiation: { mode: 'auto' as const } } : {}) });
  const args = [join(here, 'router-serve.ts'), 'stdio'];
  const headers = { authorization: 'Bearer carol' };
  const t = transport === 'stdio'
    ? (kind === 'v1' ? new V1Stdio({ command: process.execPath, args, env }) : new V2Stdio({ command: process.execPath, args, env }))
    : (kind === 'v1' ? new V1Http(url!, { requestInit: { headers } }) : new V2Http(url!, { requestInit: { headers } }));
  const call = (params: Record<string, unknown>, options: Record<string, unknown> = {}) => (kind === 'v1' ? client.callTool(params, undefined, options) : client.callTool(params, options));
  try {
    await client.connect(t);
    out.protocol = kind === 'v1' ? '2025-11-25' : client.getNegotiatedProtocolVersion();
    const tools = (await client.listTools()).tools;
    out.tools = tools.length;
    out.view_meta_on_vm_screenshot = Boolean(tools.find((x: { name: string }) => x.name === 'vm_screenshot')?._meta?.ui);
    const shot = await call({ name: 'vm_screenshot', arguments: { lease_id: 'lease-1' } });
    out.screenshot = shot.isError ? `error ${JSON.stringify(shot.structuredContent)}` : `structured keys ${Object.keys(shot.structuredContent ?? {}).join('/')}; content ${shot.content.map((c: { type: string; mimeType?: string }) => c.mimeType ?? c.type).join('+')}`;
    const progress: number[] = [];
    const st = await call({ name: 'vm_lease_status', arguments: { lease_id: 'lease-1', wait_seconds: 1 } }, { onprogress: (p: { progress: number }) => progress.push(p.progress) });
    out.status_owner = st.structuredContent?.owner ?? st.structuredContent;
    out.progress_beats = progress.length;
    const bad = await call({ name: 'vm_nope', arguments: {} });
    out.unknown_tool = bad.isError ? (bad.structuredContent as { code?: string })?.code : 'not an error';
    try {
      const raw = await client.request({ method: 'tools/call', params: { name: 'vm_health', arguments: 'not-an-object' } }, ...(kind === 'v1' ? [(await import('@modelcontextprotocol/sdk/types.js')).CallToolResultSchema] : []));
      out.malformed_args = raw.isError ? `typed ${(raw.structuredContent as { code?: string })?.code}` : 'accepted';
    } catch (e) { out.malformed_args = `protocol error: ${(e as Error).message.slice(0, 90)}`; }
    const before = events().filter((e) => e.event === 'status-aborted').length;
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('cancel')), 400);
    try { await call({ name: 'vm_lease_status', arguments: { lease_id: 'lease-1', wait_seconds: 20 } }, { signal: ac.signal, onprogress: () => undefined }); out.cancel = 'not cancelled'; } catch { out.cancel = 'client rejected'; }
    for (let i = 0; i < 20 && events().filter((e) => e.event === 'status-aborted').length === before; i++) await new Promise((r) => setTimeout(r, 100));
    out.cancel_server_saw_abort = events().filter((e) => e.event === 'status-aborted').length > before;
  } catch (e) {
    out.error = (e as Error).stack?.split('\n').slice(0, 3).join(' | ');
  } finally {
    await client.close().catch(() => undefined);
  }
  return out;
}

try {
  const url = await startHttp();
  const rows = [];
  for (const transport of ['stdio', 'http'] as const) for (const k of ['v2-auto', 'v2-default', 'v1'] as Kind[]) rows.push(await run(k, transport, url));
  console.log('\n## vmhub router on SDK v2');
  for (const r of rows) console.log(JSON.stringify(r));
  const audits = events().filter((e) => e.event === 'audit');
  console.log(`\n## audit records: ${audits.length}; principals ${[...new Set(audits.map((a) => a.principal))].join(',')}; clients ${[...new Set(audits.map((a) => a.client))].join(',')}`);
} finally {
  for (const c of children) c.kill('SIGTERM');
}
