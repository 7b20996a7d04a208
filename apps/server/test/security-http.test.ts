// The HTTP transport attacked on the BUILT server (dist/bin.js --http) with raw HTTP and the SDK
// client: bearer spellings, named principals, session hijack, revocation by SIGHUP, the session
// cap, idle reclaim with resident memory measured, oversized bodies. The principal plumbing is
// checked in-process (serveHttp / LineStdioTransport with a tool that reports its principal).
// Each class counts attempts and outcomes and prints them (t.diagnostic) for docs/security.md.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { PassThrough } from 'node:stream';
import { describe, it, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/server';
import { until } from '@vmhub/test-kit';
import { principalOf, serveHttp } from '../src/http.ts';
import type { VmhubHub } from '../src/server.ts';
import { LineStdioTransport } from '../src/stdio-transport.ts';
import { sandbox, startHttp, type HttpServer, type Sandbox } from './harness.ts';
import { httpSuite, sighup } from './http-harness.ts';

const TOKENS = { default: 'tok-default-6d1f0c2a', 'ci-agent': 'tok-ci-91b7e4d3a0', ops: 'tok-ops-5a2c88e1f4' } as const;
const ENV = { VMHUB_HTTP_TOKEN: TOKENS.default, VMHUB_TOKEN_CI: TOKENS['ci-agent'], VMHUB_TOKEN_OPS: TOKENS.ops };
const NAMED = [{ principal: 'ci-agent', token_env: 'VMHUB_TOKEN_CI' }, { principal: 'ops', token_env: 'VMHUB_TOKEN_OPS' }];

interface Tally { attempts: number; accepted: number; refused: number; wrong: number; crashes: number; hangs: number }
const tally = (): Tally => ({ attempts: 0, accepted: 0, refused: 0, wrong: 0, crashes: 0, hangs: 0 });
const report = (t: TestContext, what: string, n: Tally) => t.diagnostic(`${what}: ${n.attempts} attempts, ${n.accepted} accepted as expected, ${n.refused} refused as expected, ${n.wrong} wrong, ${n.hangs} hangs, ${n.crashes} crashes`);

const start = (box: Sandbox, env: Record<string, string> = {}, level = 'info'): Promise<HttpServer> => startHttp(box, { VMHUB_LOG_LEVEL: level, ...ENV, ...env });

const INIT = (id: string | number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/** The JSON-RPC message of a JSON or SSE response body. */
function message(text: string): any {
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
  try { return JSON.parse(data); } catch { return undefined; }
}

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; sid?: string; json: any; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body });
  const text = await res.text();
  return { status: res.status, sid: res.headers.get('mcp-session-id') ?? undefined, json: message(text), headers: res.headers };
}

const init = (url: string, auth?: string, id: string | number = 1) => post(url, INIT(id), auth === undefined ? {} : { Authorization: auth });
const bearer = (principal: keyof typeof TOKENS) => `Bearer ${TOKENS[principal]}`;

async function del(url: string, sid: string, auth: string): Promise<number> {
  return (await fetch(url, { method: 'DELETE', headers: { Authorization: auth, 'mcp-session-id': sid } })).status;
}

async function sdkClient(url: string, principal: keyof typeof TOKENS): Promise<Client> {
  const c = new Client({ name: `sec-${principal}`, version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: bearer(principal) } } }));
  return c;
}

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

describe('security: HTTP bearer tokens and principals (built server)', () => {
  const suite = httpSuite((box) => start(box, {}, 'warn'), { http: { tokens: NAMED } });

  it('the bearer scheme is case-insensitive for every principal; anything else is 401', async (t) => {
    const n = tally();
    for (const principal of Object.keys(TOKENS) as Array<keyof typeof TOKENS>) {
      const tok = TOKENS[principal];
      for (const auth of [`Bearer ${tok}`, `bearer ${tok}`, `BEARER ${tok}`, `bEaReR ${tok}`, `Bearer  ${tok}`, `Bearer\t${tok}`, ` Bearer ${tok} `]) {
        n.attempts++;
        const r = await init(suite.srv.url, auth, n.attempts);
        if (r.status === 200 && r.sid && r.json?.id === n.attempts) n.accepted++;
        else n.wrong++;
        if (r.sid) assert.equal(await del(suite.srv.url, r.sid, auth), 200);
      }
    }
    const tok = TOKENS['ci-agent'];
    const refused = [undefined, '', 'Bearer', 'Bearer ', tok, `Basic ${Buffer.from(`x:${tok}`).toString('base64')}`, `Bearer${tok}`, `Bearer ${tok}x`, `Bearer ${tok.slice(0, -1)}`,
      `Bearer ${tok.toUpperCase()}`, `Bearer ${tok} ${tok}`, `Token ${tok}`, `Bearer "${tok}"`, `Bearer ${tok},${TOKENS.ops}`, `Bearer ${TOKENS.ops}${tok}`, 'Bearer tok-', `Bearer ${'a'.repeat(8000)}`, `Bearer: ${tok}`, `Bearer=${tok}`];
    for (const auth of refused) {
      n.attempts++;
      const r = await init(suite.srv.url, auth, n.attempts);
      if (r.status === 401 && !r.sid && r.headers.get('www-authenticate')?.startsWith('Bearer')) n.refused++;
      else n.wrong++;
    }
    report(t, 'bearer spellings', n);
    assert.equal(n.wrong + n.crashes, 0);
    assert.equal(suite.srv.exited(), false);
  });

  it('a session belongs to the credential that opened it: other principals cannot use or guess it', async (t) => {
    const n = tally();
    const ci = await init(suite.srv.url, bearer('ci-agent'));
    assert.ok(ci.sid);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    const attempts: Array<[string | undefined, string, number]> = [
      [bearer('ops'), ci.sid!, 404], [bearer('default'), ci.sid!, 404], [undefined, ci.sid!, 401], ['Bearer wrong', ci.sid!, 401],
      [bearer('ci-agent'), ci.sid!.toUpperCase(), 404], [bearer('ci-agent'), `${ci.sid}x`, 404], [bearer('ci-agent'), ci.sid!.slice(0, -1), 404], [bearer('ci-agent'), `${ci.sid},${ci.sid}`, 404], [bearer('ci-agent'), '', 404],
      [bearer('ci-agent'), '../' + ci.sid, 404], [bearer('ci-agent'), ci.sid!, 200],
    ];
    for (const [auth, sid, expected] of attempts) {
      n.attempts++;
      const r = await post(suite.srv.url, list, { ...(auth ? { Authorization: auth } : {}), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
      if (r.status === expected) { if (expected === 200) n.accepted++; else n.refused++; } else { n.wrong++; t.diagnostic(`session ${JSON.stringify(sid)} with ${auth?.slice(0, 12)}: ${r.status}, expected ${expected}`); }
      if (expected === 200) assert.equal(r.json?.result?.tools?.length, 32);
    }
    report(t, 'session hijack', n);
    assert.equal(n.wrong, 0);
  });

  it('oversized and malformed bodies are answered with the request id when it can be read', { timeout: 60_000 }, async (t) => {
    const n = tally();
    const pad = 'A'.repeat(97 * 1024 * 1024);
    const cases: Array<[string | Buffer, number, string | number | null]> = [
      [`{"method":"tools/call","params":{"name":"vm_put_file","arguments":{"content_base64":"${pad}"}},"jsonrpc":"2.0","id":41}`, 413, 41],
      [`{"jsonrpc":"2.0","id":"big-42","method":"tools/call","params":{"name":"vm_type","arguments":{"text":"${pad}"}}}`, 413, 'big-42'],
      ['{"jsonrpc":"2.0","id":43,"method":"initialize","params":{', 400, 43],
      ['not json', 400, null],
    ];
    for (const [body, status, id] of cases) {
      n.attempts++;
      const started = Date.now();
      const r = await post(suite.srv.url, body, { Authorization: bearer('ci-agent') });
      if (r.status === status && r.json?.id === id && r.json?.error) n.refused++;
      else n.wrong++;
      if (status === 413) t.diagnostic(`${(body.length / 1048576).toFixed(0)} MiB body answered ${r.status} with id ${JSON.stringify(r.json?.id)} in ${Date.now() - started} ms`);
    }
    const c = await sdkClient(suite.srv.url, 'ops');
    assert.equal((await c.callTool({ name: 'vm_health', arguments: {} })).isError, undefined, 'still serving');
    await c.close();
    report(t, 'oversized/malformed bodies', n);
    assert.equal(n.wrong, 0);
  });
});

describe('security: revoking tokens by SIGHUP (built server)', () => {
  const suite = httpSuite((box) => start(box), { http: { tokens: NAMED } });

  let original: Record<string, unknown>;
  const writeConfig = (tokens: unknown) => {
    original ??= JSON.parse(readFileSync(suite.box.configFile, 'utf8'));
    writeFileSync(suite.box.configFile, JSON.stringify({ ...original, http: { tokens } }));
  };
  const hup = (expect: RegExp) => sighup(suite.srv, expect);

  it('a removed principal gets 401 and its open sessions are closed; the others keep working', async (t) => {
    const n = tally();
    const [ci, ops] = await Promise.all([sdkClient(suite.srv.url, 'ci-agent'), sdkClient(suite.srv.url, 'ops')]);
    assert.equal((await ops.callTool({ name: 'vm_health', arguments: {} })).isError, undefined);
    writeConfig([NAMED[0]]);
    await hup(/http tokens reloaded/);
    assert.match(suite.srv.stderr(), /"sessions_closed":1/);
    for (const attempt of [
      () => ops.callTool({ name: 'vm_health', arguments: {} }),
      () => ops.listTools(),
    ]) {
      n.attempts++;
      const outcome = await attempt().then(() => 'served', (e: Error) => e.message);
      if (outcome === 'served') n.wrong++;
      else n.refused++;
    }
    for (const auth of [bearer('ops'), `bearer ${TOKENS.ops}`]) {
      n.attempts++;
      if ((await init(suite.srv.url, auth)).status === 401) n.refused++;
      else n.wrong++;
    }
    n.attempts++;
    if ((await ci.callTool({ name: 'vm_health', arguments: {} })).isError === undefined) n.accepted++;
    else n.wrong++;
    n.attempts++;
    if ((await init(suite.srv.url, bearer('default'))).status === 200) n.accepted++;
    else n.wrong++;

    // A reload that fails (bad JSON, an unset env var) leaves the tokens as they were.
    writeFileSync(suite.box.configFile, '{ not json');
    await hup(/http token reload failed/);
    writeConfig([NAMED[0], { principal: 'new', token_env: 'VMHUB_TOKEN_UNSET' }]);
    await hup(/http token reload failed/);
    n.attempts++;
    if ((await init(suite.srv.url, bearer('ops'))).status === 401) n.refused++;
    else n.wrong++;
    n.attempts++;
    if ((await ci.callTool({ name: 'vm_health', arguments: {} })).isError === undefined) n.accepted++;
    else n.wrong++;

    // Put back, it works again (a new session: the old one stays closed).
    writeConfig(NAMED);
    await hup(/http tokens reloaded/);
    n.attempts++;
    if ((await init(suite.srv.url, bearer('ops'))).status === 200) n.accepted++;
    else n.wrong++;
    await ci.close();
    await ops.close().catch(() => undefined);
    report(t, 'revocation (SIGHUP)', n);
    assert.equal(n.wrong, 0);
    assert.equal(suite.srv.exited(), false);
  });
});

describe('security: HTTP session cap and idle reclaim (built server)', () => {
  it('past http.max_sessions a new initialize gets 503 with a JSON-RPC error carrying its id; nothing is evicted', async (t) => {
    // One principal here: its own cap raised to the server's, so the server's cap is what refuses.
    const box = sandbox({ http: { max_sessions: 3, max_sessions_per_principal: 3, session_idle_seconds: 600 } });
    const srv = await start(box, {}, 'warn');
    try {
      const n = tally();
      // Requests that open no session take no slot.
      for (let i = 0; i < 5; i++) {
        n.attempts++;
        const r = await post(srv.url, JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'tools/list' }), { Authorization: bearer('default') });
        if (r.status === 400 && r.json?.id === 100 + i) n.refused++;
        else n.wrong++;
        n.attempts++;
        const bad = await fetch(srv.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/plain', Authorization: bearer('default') }, body: INIT(200 + i) });
        await bad.text();
        if (bad.status >= 400 && !bad.headers.get('mcp-session-id')) n.refused++;
        else n.wrong++;
      }
      const open: string[] = [];
      for (let i = 0; i < 3; i++) {
        n.attempts++;
        const r = await init(srv.url, bearer('default'), i);
        if (r.status === 200 && r.sid) { n.accepted++; open.push(r.sid); } else n.wrong++;
      }
      for (const id of [7, 'over-cap']) {
        n.attempts++;
        const r = await init(srv.url, bearer('default'), id);
        if (r.status === 503 && r.json?.id === id && /http\.max_sessions/.test(r.json?.error?.message) && r.headers.get('retry-after')) n.refused++;
        else n.wrong++;
      }
      // Concurrent initializations at the cap: none gets through.
      const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => init(srv.url, bearer('default'), 300 + i)));
      n.attempts += burst.length;
      for (const r of burst) { if (r.status === 503) n.refused++; else n.wrong++; }
      // The open sessions were not evicted; closing one frees a slot.
      const still = await post(srv.url, JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }), { Authorization: bearer('default'), 'mcp-session-id': open[0]!, 'mcp-protocol-version': '2025-06-18' });
      assert.equal(still.status, 200);
      assert.equal(await del(srv.url, open[1]!, bearer('default')), 200);
      n.attempts++;
      if ((await init(srv.url, bearer('default'), 8)).status === 200) n.accepted++;
      else n.wrong++;
      report(t, 'session cap', n);
      assert.equal(n.wrong, 0);
    } finally {
      srv.child.kill();
      box.cleanup();
    }
  });

  it('one principal holds at most http.max_sessions_per_principal: alice\'s next initialize gets 429 naming the cap, bob\'s succeeds', async (t) => {
    const ALICE = 'tok-alice-3e8b1d60c7', BOB = 'tok-bob-a45f9e02b8';
    // max_sessions 8, per principal unset: a quarter of it, 2.
    const box = sandbox({ http: { max_sessions: 8, session_idle_seconds: 600, tokens: [{ principal: 'alice', token_env: 'VMHUB_TOKEN_ALICE' }, { principal: 'bob', token_env: 'VMHUB_TOKEN_BOB' }] } });
    const srv = await start(box, { VMHUB_TOKEN_ALICE: ALICE, VMHUB_TOKEN_BOB: BOB });
    try {
      const n = tally();
      const alice: string[] = [];
      for (let i = 0; i < 2; i++) {
        n.attempts++;
        const r = await init(srv.url, `Bearer ${ALICE}`, i);
        if (r.status === 200 && r.sid) { n.accepted++; alice.push(r.sid); } else n.wrong++;
      }
      // At her cap: refused one by one and in a concurrent burst, with the request's id and the cap named.
      const refusals = [await init(srv.url, `Bearer ${ALICE}`, 'alice-3'), ...await Promise.all(Array.from({ length: 6 }, (_, i) => init(srv.url, `Bearer ${ALICE}`, `burst-${i}`)))];
      for (const r of refusals) {
        n.attempts++;
        const e = r.json?.error;
        if (r.status === 429 && !r.sid && typeof r.json?.id === 'string' && e?.code === -32000 && /principal "alice" already has 2 open MCP sessions.*http\.max_sessions_per_principal = 2/.test(e?.message)
          && e?.data?.cap === 'http.max_sessions_per_principal' && e?.data?.limit === 2 && r.headers.get('retry-after')) n.refused++;
        else { n.wrong++; t.diagnostic(`alice over her cap: ${r.status} ${JSON.stringify(r.json)}`); }
      }
      // Bob is not affected: he opens his share while alice is at hers.
      for (let i = 0; i < 2; i++) {
        n.attempts++;
        const r = await init(srv.url, `Bearer ${BOB}`, 10 + i);
        if (r.status === 200 && r.sid) n.accepted++;
        else { n.wrong++; t.diagnostic(`bob: ${r.status} ${JSON.stringify(r.json)}`); }
      }
      // Alice's sessions still work; closing one gives her a slot back.
      const still = await post(srv.url, JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }), { Authorization: `Bearer ${ALICE}`, 'mcp-session-id': alice[0]!, 'mcp-protocol-version': '2025-06-18' });
      assert.equal(still.status, 200);
      assert.equal(await del(srv.url, alice[1]!, `Bearer ${ALICE}`), 200);
      n.attempts++;
      if ((await init(srv.url, `Bearer ${ALICE}`, 20)).status === 200) n.accepted++;
      else n.wrong++;
      report(t, 'session cap per principal', n);
      assert.equal(n.wrong, 0);
      assert.match(srv.stderr(), /"max_sessions":8,"max_sessions_per_principal":2/, 'the start-up line names both caps');
    } finally {
      srv.child.kill();
      box.cleanup();
    }
  });

  // V8 gives garbage back lazily: with its default heap limit the resident size of a server
  // that reclaimed its sessions still grows for a while (seen: 154 → 404 → 576 MB over 2 × 2000,
  // while the live heap measured with forced GCs went 35 → 120 → 39 MB per 1000). Under a 160 MB
  // heap limit V8 must collect, so 2050 sessions (~85 KB each, 175 MB if kept) only fit if the
  // closed ones are really garbage: without reclaim this server dies of heap exhaustion.
  it('2 × 1000 initializations with a 2 s idle timeout: sessions are reclaimed and memory stays bounded', { timeout: 120_000 }, async (t) => {
    const box = sandbox({ http: { max_sessions: 10_000, session_idle_seconds: 2 } });
    const srv = await start(box, { NODE_OPTIONS: '--max-old-space-size=160' });
    try {
      const pid = srv.child.pid!;
      const reclaimedTotal = () => Math.max(0, ...[...srv.stderr().matchAll(/"reclaimed_total":(\d+)/g)].map((m) => Number(m[1])));
      const lastOpen = () => Number([...srv.stderr().matchAll(/"open":(\d+),"reclaimed_total"/g)].at(-1)?.[1] ?? NaN);
      const round = async (count: number, from: number) => {
        const started = Date.now();
        let failures = 0;
        let first: string | undefined;
        for (let i = 0; i < count; i += 25) {
          const batch = await Promise.all(Array.from({ length: Math.min(25, count - i) }, (_, j) => init(srv.url, bearer('default'), from + i + j)));
          failures += batch.filter((r) => r.status !== 200).length;
          first ??= batch[0]?.sid;
        }
        return { ms: Date.now() - started, failures, first };
      };
      await round(50, 0);
      await until(() => reclaimedTotal() >= 50, 'warm-up sessions reclaimed', 20_000);
      const base = rssMb(pid);
      const r1 = await round(1000, 1000);
      const peak1 = rssMb(pid);
      await until(() => reclaimedTotal() >= 1050, 'round 1 reclaimed', 30_000);
      await new Promise((r) => setTimeout(r, 500));
      const after1 = rssMb(pid);
      const r2 = await round(1000, 5000);
      const peak2 = rssMb(pid);
      await until(() => reclaimedTotal() >= 2050, 'round 2 reclaimed', 30_000);
      await new Promise((r) => setTimeout(r, 500));
      const after2 = rssMb(pid);
      const stale = await post(srv.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { Authorization: bearer('default'), 'mcp-session-id': r1.first!, 'mcp-protocol-version': '2025-06-18' });
      t.diagnostic(`sessions: ${2050} initialized, ${reclaimedTotal()} reclaimed, ${lastOpen()} open at the end; round 1 ${r1.ms} ms, round 2 ${r2.ms} ms, ${r1.failures + r2.failures} failed initializations`);
      t.diagnostic(`resident memory (MB, heap limit 160 MB): start ${base.toFixed(0)}, after 1000 ${peak1.toFixed(0)}, reclaimed ${after1.toFixed(0)}, after 1000 more ${peak2.toFixed(0)}, reclaimed ${after2.toFixed(0)}`);
      assert.equal(r1.failures + r2.failures, 0);
      assert.equal(reclaimedTotal(), 2050);
      assert.equal(lastOpen(), 0);
      assert.equal(stale.status, 404, 'a reclaimed session is unknown');
      assert.equal(srv.exited(), false, 'the server survived 2050 sessions under a 160 MB heap limit');
      // Loose: kept, 1000 sessions would hold ~85 MB; a second round must not add as much.
      assert.ok(after2 - after1 < 80, `resident memory grew ${(after2 - after1).toFixed(0)} MB over the second round`);
    } finally {
      srv.child.kill();
      box.cleanup();
    }
  });
});

/** A hub whose only tool reports the principal its handler sees (and the auth info it got). */
function whoamiHub(): VmhubHub {
  return {
    config: {} as VmhubHub['config'],
    runtime: () => Promise.reject(new Error('no runtime in this test')),
    session() {
      const mcp = new McpServer({ name: 'whoami', version: '1' });
      mcp.registerTool('whoami', { description: 'principal of this call' }, async (ctx) => ({ content: [{ type: 'text', text: JSON.stringify({ principal: principalOf(ctx.http), auth: ctx.http?.authInfo }) }] }));
      return { mcp, router: undefined as never };
    },
    close: async () => {},
  };
}

describe('security: the authenticated principal reaches tool handlers (in-process)', () => {
  it('HTTP: each token\'s principal; the token itself never travels with it; setTokens revokes', async () => {
    const served = await serveHttp(whoamiHub(), { host: '127.0.0.1', port: 0, token: TOKENS.default, tokens: [{ principal: 'ci-agent', token: TOKENS['ci-agent'] }, { principal: 'ops', token: TOKENS.ops }], allowNoAuth: false, allowedOrigins: [] });
    try {
      const seen: Record<string, any> = {};
      const clients: Client[] = [];
      for (const principal of Object.keys(TOKENS) as Array<keyof typeof TOKENS>) {
        const c = await sdkClient(served.url, principal);
        clients.push(c);
        const r = await c.callTool({ name: 'whoami', arguments: {} });
        seen[principal] = JSON.parse((r.content as any)[0].text);
        assert.doesNotMatch((r.content as any)[0].text, /tok-/, 'no token in the auth info');
      }
      assert.deepEqual(Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, v.principal])), { default: 'default', 'ci-agent': 'ci-agent', ops: 'ops' });
      assert.equal(seen.ops.auth.extra.transport, 'http');
      assert.equal(served.sessions(), 3);
      const { closed, principals } = served.setTokens([{ principal: 'ops', token: TOKENS.ops }]);
      assert.equal(closed, 2);
      assert.deepEqual(principals, ['ops']);
      assert.equal(served.sessions(), 1);
      assert.throws(() => served.setTokens([{ principal: 'a', token: 'same' }, { principal: 'b', token: 'same' }]), /same token/);
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    } finally {
      await served.close();
    }
  });

  it('stdio: the principal is the local OS user', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const transport = new LineStdioTransport({ maxLineBytes: 1024 * 1024, stdin, stdout });
    const { mcp } = whoamiHub().session();
    await mcp.connect(transport);
    const lines: any[] = [];
    stdout.on('data', (d: Buffer) => { for (const l of d.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l)); });
    stdin.write(INIT(1) + '\n');
    stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }) + '\n');
    await until(() => lines.some((l) => l.id === 2), 'whoami answered', 15_000);
    const who = JSON.parse(lines.find((l) => l.id === 2).result.content[0].text);
    assert.equal(who.principal, userInfo().username);
    assert.equal(who.auth.extra.transport, 'stdio');
    await mcp.close();
  });
});
