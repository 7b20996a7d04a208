// Both protocol generations, both transports: the same short agent session on the fake provider
// (create a lease → vm_screenshot → vm_type → read back what the fake desktop recorded → release)
// through the BUILT server, driven by
//   - the SDK v2 client in versionNegotiation 'auto' (it probes with server/discover and speaks
//     2026-07-28: per-request `_meta` envelope, no initialize, no Mcp-Session-Id), and
//   - the SDK v1 client (2025-11-25: initialize, a session over HTTP),
// each over stdio and over Streamable HTTP. On each, a progress notification reaches the client
// (vm_lease_create {wait_seconds}) and a cancellation reaches the handler: the cancelled
// vm_exec's audit line shows it ended long before its command would have, and names the client
// (the owner label comes from the request's declared client on 2026-07-28, from initialize on 2025).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { userInfo } from 'node:os';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN, defaultTemplates, sandbox, startHttp, until, type HttpServer, type Sandbox } from './harness.ts';

const TOKEN = 'revisions-token-5d1e';
const SLEEP_S = 30;

interface CallOptions { onprogress?: (p: { message?: string }) => void; signal?: AbortSignal }
interface Driver {
  /** The protocol revision the client and the server agreed on. */
  revision(): string | undefined;
  /** The transport's Mcp-Session-Id (HTTP; undefined on 2026-07-28, which has none). */
  sessionId(): string | undefined;
  call(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<{ isError?: boolean; structuredContent?: any; content?: any[] }>;
  close(): Promise<void>;
}

let box: Sandbox;
let audit = '';
let http: HttpServer | undefined;
const leases: Array<[Driver, string]> = [];

const serverEnv = (): Record<string, string> => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'warn', VMHUB_TOOLSETS: 'all', VMHUB_AUDIT_FILE: audit });

/** The v1 client's transport, its initialize answer's protocolVersion noted as it passes. */
function noteVersion<T extends object>(transport: T, seen: (v: string) => void): T {
  let inner: ((m: unknown, e?: unknown) => void) | undefined;
  const wrapped = (m: any, e?: unknown) => { if (typeof m?.result?.protocolVersion === 'string') seen(m.result.protocolVersion); inner?.(m, e); };
  Object.defineProperty(transport, 'onmessage', { configurable: true, get: () => (inner ? wrapped : undefined), set: (h) => { inner = h; } });
  return transport;
}

const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

async function v2(name: string, over: 'stdio' | 'http', capabilities?: typeof UI): Promise<Driver & { client: ClientV2 }> {
  const client = new ClientV2({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' }, ...(capabilities ? { capabilities } : {}) });
  const transport = over === 'stdio'
    ? new StdioV2({ command: process.execPath, args: [BIN], env: serverEnv(), stderr: 'pipe' })
    : new HttpV2(new URL(http!.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
  await client.connect(transport);
  return {
    client,
    revision: () => client.getNegotiatedProtocolVersion(),
    sessionId: () => (transport instanceof HttpV2 ? transport.sessionId : undefined),
    call: (tool, args, o = {}) => client.callTool({ name: tool, arguments: args }, o) as never,
    close: () => client.close(),
  };
}

async function v1(name: string, over: 'stdio' | 'http', capabilities?: typeof UI): Promise<Driver & { client: ClientV1 }> {
  let version: string | undefined;
  const client = new ClientV1({ name, version: '1.0.0' }, capabilities ? { capabilities } : {});
  const transport = over === 'stdio'
    ? new StdioV1({ command: process.execPath, args: [BIN], env: serverEnv(), stderr: 'pipe' })
    : new HttpV1(new URL(http!.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
  await client.connect(noteVersion(transport, (v) => { version = v; }));
  return {
    client,
    revision: () => version,
    sessionId: () => (transport instanceof HttpV1 ? transport.sessionId : undefined),
    call: (tool, args, o = {}) => client.callTool({ name: tool, arguments: args }, undefined, o) as never,
    close: () => client.close(),
  };
}

const auditLines = (): any[] => {
  try { return readFileSync(audit, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)); } catch { return []; }
};

/** The session every combination runs; `expect` is what the combination must show. */
async function agentSession(d: Driver, client: string, expect: { revision: string; principal: string; session: 'none' | 'yes' | 'n/a' }): Promise<void> {
  assert.equal(d.revision(), expect.revision, 'the negotiated revision');
  if (expect.session === 'none') assert.equal(d.sessionId(), undefined, '2026-07-28 over HTTP has no Mcp-Session-Id');
  if (expect.session === 'yes') assert.ok(d.sessionId(), 'a 2025 client over HTTP holds an Mcp-Session-Id');

  // A progress notification: vm_lease_create waits for readiness, reporting its stages.
  const progress: string[] = [];
  const created = await d.call('vm_lease_create', { template: 'fake-1s', wait_seconds: 20 }, { onprogress: (p) => { progress.push(p.message ?? ''); } });
  assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
  const lease = created.structuredContent.lease_id as string;
  leases.push([d, lease]);
  assert.equal(created.structuredContent.status, 'ready', JSON.stringify(created.structuredContent));
  assert.ok(progress.length >= 1, `a progress notification arrived: ${JSON.stringify(progress)}`);

  const shot = await d.call('vm_screenshot', { lease_id: lease });
  assert.equal(shot.isError, undefined, JSON.stringify(shot.structuredContent));
  assert.ok(shot.content?.some((c) => c.type === 'image'), 'the screenshot carries an image');

  const text = `typed by ${client}`;
  const typed = await d.call('vm_type', { lease_id: lease, text });
  assert.equal(typed.isError, undefined, JSON.stringify(typed.structuredContent));
  const state = await d.call('vm_dispatch', { lease_id: lease, verb: 'desktop_state' });
  assert.equal(state.isError, undefined, JSON.stringify(state.structuredContent));
  assert.ok(String(state.structuredContent.result.typed).endsWith(text), `the fake desktop recorded it: ${JSON.stringify(state.structuredContent.result.typed)}`);

  // A cancellation: the handler's signal aborts, so the 30 s command ends within seconds.
  const ctl = new AbortController();
  const started = Date.now();
  const running = d.call('vm_exec', { lease_id: lease, shell: `sleep ${SLEEP_S}; echo slept` }, { signal: ctl.signal });
  running.catch(() => undefined);
  await new Promise((r) => setTimeout(r, 1500));
  ctl.abort();
  await assert.rejects(running, 'the cancelled call rejects on the client');
  const line = await until(() => auditLines().find((l) => l.tool === 'vm_exec' && l.owner === client), `${client}'s vm_exec to end on the server`, 15_000);
  assert.ok(Date.now() - started < SLEEP_S * 1000 && line.duration_ms < 15_000, `the handler saw the cancellation: ${JSON.stringify(line)}`);
  assert.equal(line.outcome, 'error', JSON.stringify(line));
  assert.equal(line.code, 'CANCELLED', 'audited as cancelled by the client, not as an internal error');
  assert.equal(line.principal, expect.principal, 'the principal of the transport');

  const released = await d.call('vm_lease_release', { lease_id: lease });
  assert.equal(released.structuredContent.status, 'released', JSON.stringify(released.structuredContent));
  leases.pop();
  // The owner label of every call is this client, as the request (2026-07-28) or initialize (2025) declared it.
  // (vm_lease_create's line names no lease_id: its arguments carry none.)
  await until(() => auditLines().some((l) => l.tool === 'vm_lease_release' && l.lease_id === lease), 'the release audited', 5_000);
  const mine = auditLines().filter((l) => l.lease_id === lease || (l.tool === 'vm_lease_create' && l.owner === client));
  assert.deepEqual(mine.map((l) => l.tool), ['vm_lease_create', 'vm_screenshot', 'vm_type', 'vm_dispatch', 'vm_exec', 'vm_lease_release']);
  assert.ok(mine.every((l) => l.owner === client && l.principal === expect.principal), JSON.stringify(mine));
}

before(async () => {
  box = sandbox({ files: { max_bytes: 32 * 1024 * 1024 } }, [...defaultTemplates(), { id: 'fake-1s', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 1200 } }]);
  audit = join(box.dir, 'audit.jsonl');
  http = await startHttp(box, { VMHUB_HTTP_TOKEN: TOKEN, VMHUB_AUDIT_FILE: audit, VMHUB_TOOLSETS: 'all' });
});
after(async () => {
  for (const [d, lease] of leases) await d.call('vm_lease_release', { lease_id: lease }).catch(() => undefined);
  await http?.stop();
  box?.cleanup();
});

const local = userInfo().username;
describe('revisions: 2026-07-28 and 2025-11-25 clients, stdio and HTTP, one agent session each', () => {
  for (const over of ['stdio', 'http'] as const) {
    it(`SDK v2 client (versionNegotiation auto → 2026-07-28) over ${over}`, { timeout: 60_000 }, async () => {
      const name = `rev-v2-${over}`;
      const d = await v2(name, over);
      try {
        await agentSession(d, name, { revision: '2026-07-28', principal: over === 'http' ? 'default' : local, session: over === 'http' ? 'none' : 'n/a' });
      } finally { await d.close(); }
    });
    it(`SDK v1 client (2025-11-25) over ${over}`, { timeout: 60_000 }, async () => {
      const name = `rev-v1-${over}`;
      const d = await v1(name, over);
      try {
        await agentSession(d, name, { revision: '2025-11-25', principal: over === 'http' ? 'default' : local, session: over === 'http' ? 'yes' : 'n/a' });
      } finally { await d.close(); }
    });
  }

  // What a client declares reaches tools/list: on 2026-07-28 in each stateless request's envelope,
  // on 2025 in initialize. A host that renders MCP Apps gets the View named on two tools; others not.
  it('the client\'s capabilities per request: an MCP Apps host gets the View on vm_screenshot, others do not (both SDKs, HTTP)', { timeout: 60_000 }, async () => {
    const named = async (tools: Array<{ name: string; _meta?: any }>) => tools.filter((t) => t._meta?.ui?.resourceUri).map((t) => t.name).sort();
    const [a, b, c, e] = [await v2('rev-ui-v2', 'http', UI), await v2('rev-plain-v2', 'http'), await v1('rev-ui-v1', 'http', UI), await v1('rev-plain-v1', 'http')];
    try {
      assert.equal(a.revision(), '2026-07-28');
      assert.deepEqual(await named((await a.client.listTools()).tools), ['vm_lease_create', 'vm_screenshot']);
      assert.deepEqual(await named((await b.client.listTools()).tools), []);
      assert.deepEqual(await named((await c.client.listTools()).tools), ['vm_lease_create', 'vm_screenshot']);
      assert.deepEqual(await named((await e.client.listTools()).tools), []);
    } finally { await Promise.all([a, b, c, e].map((d) => d.close())); }
  });

  // The SDK's HTTP entry reads at most 4 MiB of a body by default; vmhub reads (and caps) the body
  // itself at 96 MiB and hands it over parsed, so a large vm_put_file works at 2026-07-28 too.
  it('SDK v2 client (2026-07-28) over http: a 12 MiB vm_put_file (16 MiB of base64) is taken whole', { timeout: 60_000 }, async () => {
    const d = await v2('rev-v2-http-big', 'http');
    try {
      assert.equal(d.revision(), '2026-07-28');
      const created = await d.call('vm_lease_create', { template: 'fake-desktop', wait_seconds: 20 });
      const lease = created.structuredContent.lease_id as string;
      leases.push([d, lease]);
      const data = randomBytes(12 * 1024 * 1024);
      const put = await d.call('vm_put_file', { lease_id: lease, path: 'big.bin', content_base64: data.toString('base64') });
      assert.equal(put.isError, undefined, JSON.stringify(put.structuredContent).slice(0, 300));
      assert.equal(put.structuredContent.sha256, createHash('sha256').update(data).digest('hex'));
      assert.equal((await d.call('vm_lease_release', { lease_id: lease })).structuredContent.status, 'released');
      leases.pop();
    } finally { await d.close(); }
  });
});

// A 2026-07-28 client's `server/discover` probe over stdio may come from a process spawned for the
// probe alone (the SDK v2 client's 'auto' mode does that): answering it must not start the runtime
// (the store, the plugins, the reaper). The first real request does.
it('revisions: a bare server/discover over stdio answers without starting the runtime; tools/list starts it', { timeout: 60_000 }, async () => {
  const probeBox = sandbox();
  const child = spawn(process.execPath, [BIN], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? probeBox.dir, VMHUB_CONFIG: probeBox.configFile, VMHUB_LOG_LEVEL: 'warn' }, stdio: ['pipe', 'pipe', 'pipe'] });
  try {
    const answers: any[] = [];
    let buf = '';
    child.stdout.on('data', (d: Buffer) => { buf += d; for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) { answers.push(JSON.parse(buf.slice(0, i))); buf = buf.slice(i + 1); } });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'probe', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }) + '\n');
    const discovered = await until(() => answers.find((a) => a.id === 1), 'the discover answer', 15_000);
    assert.ok(discovered.result && !discovered.error, JSON.stringify(discovered));
    assert.match(JSON.stringify(discovered.result), /2026-07-28/, 'the discover answer names the revision');
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(existsSync(probeBox.db), false, 'no store opened for a probe');
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } }) + '\n');
    const listed = await until(() => answers.find((a) => a.id === 2), 'the tools/list answer', 15_000);
    assert.ok(listed.result?.tools?.length > 0, JSON.stringify(listed).slice(0, 300));
    await until(() => existsSync(probeBox.db), 'the runtime to open the store after a real request', 15_000);
  } finally {
    child.stdin.end();
    await new Promise((r) => { child.once('exit', r); setTimeout(() => { child.kill('SIGKILL'); r(undefined); }, 10_000).unref(); });
    probeBox.cleanup();
  }
});
