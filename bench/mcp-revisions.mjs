// The MCP SDK v2 server against the v1 one (issue 34.1), and stateless HTTP across servers
// (issue 34.2), on the built server with the conformance fake provider (a `fake-stub` lease: no
// machine work, so what is timed is the protocol path — transport, SDK, router, store read).
//
// Per call: the round trip of tools/call `vm_lease_status` over Streamable HTTP on loopback, the
// ways interleaved round by round in one run:
//   - v2 server, v2 client at 2026-07-28 (stateless: one POST, no session);
//   - v2 server, v1 client at 2025-11-25 (initialize once, then calls in its HTTP session);
//   - v1 server (vmhub at V1_REF, the last commit on @modelcontextprotocol/sdk 1.x), v1 client:
//     what main served before the move;
//   - the naive way, a one-shot client per call (what a script or `vmhub-call`-like wrapper does
//     without keeping a client): v1 client on the v1 server (initialize + initialized + call +
//     DELETE of the session) and v2 client on the v2 server (server/discover probe + call);
//   - the floor: the v2 client's own tools/call request (headers and body, as it went over the
//     wire) POSTed with fetch to a loopback HTTP server in this process that answers the v2
//     server's own response bytes (HTTP alone: no MCP, no vmhub).
// Throughput: N = 1, 2, 4 v2 servers on one PostgreSQL behind a round-robin TCP proxy
// (@vmhub/test-kit), CLIENTS v2 clients at 2026-07-28 calling vm_lease_status without pause for
// SECONDS; calls per second and how the proxy spread the connections.
//
// The v1 server: VMHUB_V1_SERVER_BIN (a built apps/server/dist/bin.js of V1_REF), else this script
// builds V1_REF once into $TMPDIR/vmhub-v1-<ref> (git archive, pnpm install, build: minutes).
//   node bench/mcp-revisions.mjs      (writes its section of bench/RESULTS.md)
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpServer, startRoundRobinProxy } from '@vmhub/test-kit';
import { round, runAsSection, SERVER_BIN, stats } from './lib.mjs';
import { distOf, ROOT } from './paths.mjs';

const V1_REF = 'd98b4b08fc9be10cdb385b5443578334d2dd1047';
const CALLS = Number(process.env.CALLS ?? 300);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ONE_SHOT = Number(process.env.ONE_SHOT ?? 60);
const CLIENTS = Number(process.env.CLIENTS ?? 8);
const SECONDS = Number(process.env.SECONDS ?? 5);
const TOKEN = `bench-${randomBytes(6).toString('hex')}`;
const HEADERS = { Authorization: `Bearer ${TOKEN}` };
const TEMPLATES = [{ id: 'fake-stub', provider: 'fake', adapter: 'stub', os: 'linux', golden: 'fake:golden', provider_options: { ready_delay_ms: 0 } }];

/** The v1 server's bin: given, or V1_REF built once into a temp dir. */
function v1Bin() {
  if (process.env.VMHUB_V1_SERVER_BIN) return process.env.VMHUB_V1_SERVER_BIN;
  const dir = join(tmpdir(), `vmhub-v1-${V1_REF.slice(0, 12)}`);
  const bin = join(dir, 'apps/server/dist/bin.js');
  if (existsSync(bin)) return bin;
  console.error(`[bench] building the v1 server (${V1_REF.slice(0, 12)}) into ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('bash', ['-c', `git -C "${ROOT}" archive ${V1_REF} | tar -x -C "${dir}"`], { stdio: 'inherit' });
  execFileSync('pnpm', ['install', '--frozen-lockfile'], { cwd: dir, stdio: 'inherit' });
  execFileSync('pnpm', ['--filter', '@vmhub/server...', 'run', 'build'], { cwd: dir, stdio: 'inherit' });
  return bin;
}

/** A config in a temp dir (the fake provider, its templates, `db`), and a server on it over HTTP. */
async function server(bin, db, fakeDir) {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-rev-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({
    instance: `b${randomBytes(4).toString('hex')}`, db: db ?? join(dir, 'vmhub.db'), plugins: ['@vmhub/conformance/fake'],
    providers: { fake: { dir: fakeDir ?? join(dir, 'fake') } }, templates: TEMPLATES, reaper: { autostart: false }, toolsets: ['all'],
  }));
  const srv = await startHttpServer({ bin, args: ['--host', '127.0.0.1', '--port', '0'], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, VMHUB_CONFIG: config, VMHUB_LOG_LEVEL: 'error', VMHUB_HTTP_TOKEN: TOKEN } });
  return { ...srv, dir, async end() { await srv.stop(); rmSync(dir, { recursive: true, force: true }); } };
}

async function clientV2(url, fetchImpl) {
  const client = new ClientV2({ name: 'bench-v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new HttpV2(new URL(url), { requestInit: { headers: HEADERS }, ...(fetchImpl ? { fetch: fetchImpl } : {}) }));
  return client;
}
async function clientV1(url) {
  const client = new ClientV1({ name: 'bench-v1', version: '1' });
  const transport = new HttpV1(new URL(url), { requestInit: { headers: HEADERS } });
  await client.connect(transport);
  return { client, transport };
}
const status = (client, lease) => client.callTool({ name: 'vm_lease_status', arguments: { lease_id: lease } });
async function ok(result) {
  const r = await result;
  if (r.isError) throw new Error(JSON.stringify(r.structuredContent));
  return r;
}
/** A ready fake-stub lease, made through `client`. */
async function lease(client) {
  const r = await ok(client.callTool({ name: 'vm_lease_create', arguments: { template: 'fake-stub', wait_seconds: 20 } }));
  if (r.structuredContent.status !== 'ready') throw new Error(`lease ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent.lease_id;
}
async function timed(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times;
}

/** The floor's loopback server: answers every POST with `body` (of content type `type`) as the v2 server answered it. */
async function floorServer(body, type) {
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () => { res.writeHead(200, { 'content-type': type }); res.end(body); });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${srv.address().port}/mcp`, close: () => new Promise((r) => srv.close(r)) };
}

async function perCall() {
  const v2 = await server(SERVER_BIN);
  const v1 = await server(v1Bin());
  const open = [];
  try {
    // The v2 client's last request and the server's answer as they went over the wire, for the floor.
    const wire = {};
    const a = await clientV2(v2.url); open.push(a);
    const cap = await clientV2(v2.url, async (input, init) => {
      const res = await fetch(input, init);
      if (typeof init?.body !== 'string' || !init.body.includes('"tools/call"')) return res;
      const text = await res.text();
      Object.assign(wire, { headers: init.headers, body: init.body, answer: text, type: res.headers.get('content-type') });
      return new Response(text, { status: res.status, headers: res.headers });
    });
    open.push(cap);
    const b = await clientV1(v2.url); open.push(b.client);
    const c = await clientV1(v1.url); open.push(c.client);
    const leaseV2 = await lease(a);
    const leaseV1 = await lease(c.client);
    await ok(status(cap, leaseV2));
    const floor = await floorServer(wire.answer, wire.type);
    const ways = {
      'v2 server · v2 client, 2026-07-28 (stateless)': () => ok(status(a, leaseV2)),
      'v2 server · v1 client, 2025-11-25 (session)': () => ok(status(b.client, leaseV2)),
      'v1 server (SDK 1.32.2) · v1 client, 2025-11-25 (session)': () => ok(status(c.client, leaseV1)),
      'floor: the v2 client\'s request bytes POSTed with fetch to a loopback server answering the v2 server\'s bytes': async () => { await (await fetch(floor.url, { method: 'POST', headers: wire.headers, body: wire.body })).text(); },
    };
    const oneShot = {
      'naive, v1 server: a new v1 client per call (initialize, call, DELETE session)': async () => { const x = await clientV1(v1.url); await ok(status(x.client, leaseV1)); await x.transport.terminateSession(); await x.client.close(); },
      'naive, v2 server: a new v2 client per call (server/discover, call)': async () => { const x = await clientV2(v2.url); await ok(status(x, leaseV2)); await x.close(); },
    };
    const times = Object.fromEntries([...Object.keys(ways), ...Object.keys(oneShot)].map((k) => [k, []]));
    for (const fn of Object.values(ways)) await timed(30, fn);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [k, fn] of Object.entries(ways)) times[k].push(...await timed(CALLS, fn));
      for (const [k, fn] of Object.entries(oneShot)) times[k].push(...await timed(ONE_SHOT, fn));
    }
    await floor.close();
    return Object.fromEntries(Object.entries(times).map(([k, t]) => [k, stats(t, 2)]));
  } finally {
    for (const client of open) await client.close().catch(() => undefined);
    await v2.end();
    await v1.end();
  }
}

/** `clients` v2 clients through `url`, each on its own lease, calling vm_lease_status for `seconds`. */
async function drive(url, clients, seconds) {
  const all = await Promise.all(Array.from({ length: clients }, () => clientV2(url)));
  try {
    const leases = await Promise.all(all.map((c) => lease(c)));
    let calls = 0;
    const end = performance.now() + seconds * 1000;
    const t0 = performance.now();
    await Promise.all(all.map(async (c, i) => { while (performance.now() < end) { await ok(status(c, leases[i])); calls++; } }));
    const elapsed = (performance.now() - t0) / 1000;
    await Promise.all(all.map((c, i) => ok(c.callTool({ name: 'vm_lease_release', arguments: { lease_id: leases[i] } }))));
    return { calls, calls_per_s: round(calls / elapsed, 0) };
  } finally {
    await Promise.all(all.map((c) => c.close().catch(() => undefined)));
  }
}

async function throughput() {
  const { startPostgres } = await import(distOf('packages/postgres-testing'));
  const pg = await startPostgres();
  const out = {};
  try {
    for (const n of [1, 2, 4]) {
      const url = await pg.createDatabase(`bench_${n}_${randomBytes(3).toString('hex')}`);
      const fakeDir = mkdtempSync(join(tmpdir(), 'vmhub-bench-rev-fake-'));
      const servers = [];
      try {
        for (let i = 0; i < n; i++) servers.push(await server(SERVER_BIN, url, fakeDir));
        const proxy = await startRoundRobinProxy(servers.map((s) => Number(new URL(s.base).port)));
        try {
          await drive(`${proxy.base}/mcp`, CLIENTS, 1); // warm: every server's runtime and pool
          const r = await drive(`${proxy.base}/mcp`, CLIENTS, SECONDS);
          // Kept-alive connections, opened mostly while warming: the spread of the clients' load.
          out[`${n} server${n > 1 ? 's' : ''}`] = { ...r, connections_per_server: Object.values(proxy.connections()) };
        } finally {
          await proxy.close();
        }
      } finally {
        for (const s of servers) await s.end();
        rmSync(fakeDir, { recursive: true, force: true });
      }
    }
  } finally {
    pg.destroy();
  }
  return out;
}

await runAsSection(import.meta.url, {
  name: 'mcp-revisions',
  title: 'MCP SDK v2 server vs v1, and N stateless servers behind a proxy (issue 34)',
  targets: 'measured, no target: tools/call vm_lease_status round trip, v2 server (2026-07-28 stateless; 2025-11-25 session) beside the v1 server, the one-shot client per call and the floor (HTTP + JSON alone); calls per second of 1, 2, 4 servers on one PostgreSQL behind a round-robin TCP proxy',
  command: 'node bench/mcp-revisions.mjs',
  after: 'live-view',
}, async () => ({
  machine: { cpus: cpus().length, load_before: loadavg().map((l) => round(l, 2)), v1_ref: V1_REF.slice(0, 12) },
  per_call_ms: await perCall(),
  [`throughput_${CLIENTS}_clients_${SECONDS}_s`]: await throughput(),
  load_after: loadavg().map((l) => round(l, 2)),
}));
