// Stateless 2026-07-28 over HTTP across server processes: two BUILT `vmhub-server --http` on one
// PostgreSQL database and one fake machine directory, behind a round-robin TCP proxy on loopback
// (test-kit's startRoundRobinProxy). The agents are SDK v2 clients in versionNegotiation 'auto'
// (they speak 2026-07-28: no initialize, no Mcp-Session-Id, each request carries its `_meta`)
// whose fetch opens a connection per request (`Connection: close`), so the proxy hands each call
// to the next server:
//   - 6 agents at once: create → screenshot → click → release, every call answered, each agent's
//     calls audited by both servers (their own audit files; its zoomed screenshot by one, the click
//     in it by the other, and the click lands in the guest where that zoom showed it), a
//     connection per request split evenly, the leases released in the store and their machines
//     gone from the provider's directory;
//   - a take-over through A's live API refuses vm_type through B (the text never reaches the
//     guest); the hand-back through A lets the next one through B, with the note;
//   - a detached vm_exec started through A is read through B until it ends, with its output;
//   - A SIGKILLed while 6 agents loop create → screenshot → click → release through the proxy: a
//     call A did not answer is sent again (the proxy skips the dead A, so B takes it; creates carry
//     a request_id, so a create A committed is found again, not doubled). Every lease any agent
//     made is released in the store and no fake machine is left. What B cannot take over is
//     named where it happens: a lease A was still provisioning stays provisioning (provisioning
//     runs in the creating process; only the reaper fails it, once A's 20 s claim lapses) — the
//     agent releases it through B, which destroys whatever machine A made; a release A had
//     started is held by A's 60 s teardown claim — the test lapses that claim in the store (as the
//     kill tests move time there) and the agent's next release through B finishes it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readFakeLedger } from '@vmhub/conformance/fake';
import { startPostgres, type PostgresServer } from '@vmhub/postgres-testing';
import { Store } from '@vmhub/store';
import { startRoundRobinProxy, type TcpProxy } from '@vmhub/test-kit';
import { errorCode, okCaller, sandbox, until, waitReady, type Sandbox } from './harness.ts';
import { desktopInGuest, fakeMachines, liveApi, startHttp, typedInGuest, type HttpServer, type ToolResult } from './http-harness.ts';

const TOKEN = 'stateless-two-servers-7c41e0';
const REVISION = '2026-07-28';
const AGENTS = 6;
/** Rounds of create → screenshot → click → release per agent while A is killed… */
const ROUNDS = 4;
/** …once this many leases were created (some agents then in their second round). */
const KILL_AFTER = 9;
const MAKING = ['provisioning', 'starting'];

/** Node's fetch with every request on a connection of its own: the proxy sends each to the next server. */
const fetchPerRequest = (url: string | URL, init?: RequestInit): Promise<Response> => {
  const headers = new Headers(init?.headers);
  headers.set('Connection', 'close');
  return fetch(url, { ...init, headers });
};

interface Agent {
  name: string;
  /** Tool calls sent (each one HTTP request: one audit line on the server that took it). */
  calls: number;
  call(tool: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

const opened: Agent[] = [];

/** An SDK v2 client named `name` of the MCP endpoint `url` (a server's, or the proxy's), bearer token. */
async function agent(name: string, url: string, fetch: typeof fetchPerRequest = fetchPerRequest): Promise<Agent> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch, requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
  await client.connect(transport);
  assert.equal(client.getNegotiatedProtocolVersion(), REVISION, `${name} speaks ${REVISION}`);
  assert.equal(transport.sessionId, undefined, 'no Mcp-Session-Id: nothing ties the agent to one server');
  const a: Agent = {
    name,
    calls: 0,
    call: async (tool, args = {}) => {
      a.calls++;
      return await client.callTool({ name: tool, arguments: args }) as ToolResult;
    },
    close: () => client.close(),
  };
  opened.push(a);
  return a;
}

/**
 * Back-to-back turns of the proxy for one agent: `run(name, work)` holds the other agents'
 * requests before they open a connection (their fetch is `fetch(theirName)`), waits until every
 * connection opened so far has reached its server, then runs `work`: its requests take the
 * proxy's next turns one after the other, so two in a row go to different servers.
 */
function turns(proxy: TcpProxy) {
  const total = () => Object.values(proxy.connections()).reduce((n, c) => n + c, 0);
  const base = total();
  let opened = 0;
  let holder: string | undefined;
  let free = Promise.resolve();
  return {
    fetch: (name: string): typeof fetchPerRequest => async (url, init) => {
      while (holder !== undefined && holder !== name) await free;
      opened++;
      return fetchPerRequest(url, init);
    },
    async run<T>(name: string, work: () => Promise<T>): Promise<T> {
      while (holder !== undefined) await free;
      let done!: () => void;
      holder = name;
      free = new Promise((r) => { done = r; });
      try {
        await until(() => total() - base === opened, 'every connection opened so far to reach its server', 10_000, 5);
        return await work();
      } finally {
        holder = undefined;
        done();
      }
    },
  };
}

const port = (s: { base: string }): number => Number(new URL(s.base).port);
const range = (n: number): number[] => [...Array(n).keys()];

function auditLines(file: string): { tool: string; owner: string; lease_id?: string; outcome: string }[] {
  try { return readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)); } catch { return []; }
}

/** Where a fake desktop's screen point is for image point (x, y) of a screenshot answer (its scale and origin). */
function onScreen(shot: { scale?: number; origin?: { x: number; y: number } }, x: number, y: number): [number, number] {
  const scale = shot.scale ?? 1;
  return [Math.round((shot.origin?.x ?? 0) + x / scale), Math.round((shot.origin?.y ?? 0) + y / scale)];
}

describe('stateless 2026-07-28: two HTTP servers on one PostgreSQL behind a round-robin proxy', () => {
  let pg: PostgresServer;
  let box: Sandbox;
  let url = '';
  let a: HttpServer;
  let b: HttpServer;
  let proxy: TcpProxy;
  let store: Store;
  const audit = { a: '', b: '' };

  before(async () => {
    pg = await startPostgres();
    url = await pg.createDatabase('stateless_two');
    box = sandbox();
    audit.a = join(box.dir, 'audit-a.jsonl');
    audit.b = join(box.dir, 'audit-b.jsonl');
    const env = (file: string) => ({ VMHUB_HTTP_TOKEN: TOKEN, VMHUB_DB: url, VMHUB_AUDIT_FILE: file, VMHUB_TOOLSETS: 'all' });
    [a, b] = await Promise.all([startHttp(box, env(audit.a)), startHttp(box, env(audit.b))]);
    proxy = await startRoundRobinProxy([port(a), port(b)]);
    store = new Store({ path: url });
  });

  after(async () => {
    await Promise.allSettled(opened.map((c) => c.close()));
    await proxy?.close();
    await store?.close();
    await Promise.allSettled([a?.stop(), b?.stop()]);
    pg?.destroy();
    box?.cleanup();
  });

  it('6 agents through the proxy: create → screenshot → click → release, each agent\'s calls answered by both servers', { timeout: 60_000 }, async (t) => {
    const before = proxy.connections();
    const turn = turns(proxy);
    const agents = await Promise.all(range(AGENTS).map((i) => agent(`agent-${i}`, `${proxy.base}/mcp`, turn.fetch(`agent-${i}`))));
    const leases = await Promise.all(agents.map(async (ag, i) => {
      const ok = okCaller(ag);
      const lease = (await ok('vm_lease_create', { template: 'fake-desktop', request_id: `rr-${i}` })).structuredContent.lease_id as string;
      assert.equal((await waitReady(ag, lease)).status, 'ready');
      // A zoomed screenshot and a click in its image back to back: the proxy gives them to
      // different servers, so the click is mapped by the zoom the other server took (the store's
      // lease_screens): image (x, y) is screen (100 + x/2, 80 + y/2).
      const [x, y] = [40 + 20 * i, 30 + 10 * i];
      const shot = await turn.run(ag.name, async () => {
        const taken = await ok('vm_screenshot', { lease_id: lease, region: { x: 100, y: 80, width: 200, height: 150 }, scale: 2 });
        await ok('vm_click', { lease_id: lease, target: { x, y } });
        return taken;
      });
      assert.ok(shot.content.some((c) => c.type === 'image'), 'the screenshot carries an image');
      assert.deepEqual([shot.structuredContent.scale, shot.structuredContent.origin], [2, { x: 100, y: 80 }], JSON.stringify(shot.structuredContent));
      const click = desktopInGuest(box, lease)?.clicks.at(-1);
      assert.deepEqual([click?.x, click?.y], [100 + x / 2, 80 + y / 2], `${ag.name}'s click is in its guest's desktop file where the zoom showed it`);
      assert.equal((await ok('vm_lease_release', { lease_id: lease })).structuredContent.status, 'released');
      return lease;
    }));

    // The effects: released in the store, each machine made once and destroyed once, none left.
    assert.equal(new Set(leases).size, AGENTS);
    const ledger = await readFakeLedger(box.fakeDir);
    for (const id of leases) {
      const row = await store.getLease(id);
      assert.equal(row?.status, 'released', `lease ${id} in the store: ${JSON.stringify(row)}`);
      assert.equal(ledger.filter((e) => e.op === 'create' && e.identity === row!.identity).length, 1, `one machine made for ${id}`);
      assert.equal(ledger.filter((e) => e.op === 'destroy' && e.identity === row!.identity).length, 1, `its machine destroyed once`);
    }
    assert.deepEqual(fakeMachines(box).filter((m) => leases.includes(m.lease_id)), [], 'no machine of these leases is left in the provider\'s directory');

    // The alternation: every call audited once, by one server or the other, and each agent's calls on both.
    const split = (ag: Agent) => [auditLines(audit.a), auditLines(audit.b)].map((lines) => lines.filter((l) => l.owner === ag.name).length) as [number, number];
    await until(() => agents.every((ag) => split(ag)[0] + split(ag)[1] === ag.calls), 'every call of every agent in one of the audit files', 10_000);
    for (const [i, ag] of agents.entries()) {
      const [onA, onB] = split(ag);
      assert.ok(onA > 0 && onB > 0, `${ag.name}'s ${ag.calls} calls: ${onA} answered by A, ${onB} by B`);
      const answered = (file: string, tool: string) => auditLines(file).some((l) => l.owner === ag.name && l.tool === tool && l.lease_id === leases[i]);
      assert.ok(answered(audit.a, 'vm_screenshot') !== answered(audit.b, 'vm_screenshot'), 'one server took the screenshot');
      assert.ok(answered(audit.a, 'vm_screenshot') === answered(audit.b, 'vm_click'), `${ag.name}: the other server took the click`);
    }
    const now = proxy.connections();
    const [byA, byB] = [now[port(a)]! - before[port(a)]!, now[port(b)]! - before[port(b)]!];
    const calls = agents.reduce((n, ag) => n + ag.calls, 0);
    assert.ok(Math.abs(byA - byB) <= 1, `round robin: ${byA} connections to A, ${byB} to B`);
    assert.equal(byA + byB, calls + AGENTS, `a connection per request: ${calls} tool calls and ${AGENTS} server/discover probes`);
    t.diagnostic(`connections A ${byA}, B ${byB} for ${calls} tool calls + ${AGENTS} probes; per agent (A/B): ${agents.map((ag) => split(ag).join('/')).join(' ')}`);
  });

  it('a take-over through A\'s live API refuses vm_type through B; the hand-back through A lets the next one through B', { timeout: 30_000 }, async () => {
    const onB = await agent('typist-on-b', b.url);
    const lease = (await okCaller(onB)('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id as string;
    assert.equal((await waitReady(onB, lease)).status, 'ready');
    const taken = await liveApi(a, TOKEN, `/api/leases/${lease}/takeover`, {});
    assert.equal(taken.status, 200, JSON.stringify(taken.json));
    assert.equal(taken.json.control, 'human');
    assert.equal((await liveApi(b, TOKEN, `/api/leases/${lease}`)).json.control, 'human', 'B\'s live API shows the take-over made on A');

    const refused = await onB.call('vm_type', { lease_id: lease, text: 'blocked-through-b' });
    assert.equal(errorCode(refused), 'HUMAN_CONTROL', JSON.stringify(refused.structuredContent));
    assert.ok(!typedInGuest(box, lease).includes('blocked-through-b'), 'the refused text never reached the guest');

    const note = 'handed back on A';
    const back = await liveApi(a, TOKEN, `/api/leases/${lease}/handback`, { note });
    assert.equal(back.status, 200, JSON.stringify(back.json));
    const through = await okCaller(onB)('vm_type', { lease_id: lease, text: 'typed-through-b' });
    assert.equal(through.structuredContent.human_note, note, 'B delivers the note A took');
    assert.equal(typedInGuest(box, lease), 'typed-through-b', 'only the text typed after the hand-back is in the guest');
    assert.equal((await okCaller(onB)('vm_lease_release', { lease_id: lease })).structuredContent.status, 'released');
  });

  it('a detached vm_exec started through A is read through B until it ends, with its output', { timeout: 30_000 }, async () => {
    const [onA, onB] = await Promise.all([agent('jobs-on-a', a.url), agent('jobs-on-b', b.url)]);
    const lease = (await okCaller(onA)('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id as string;
    assert.equal((await waitReady(onB, lease)).status, 'ready');
    const started = await okCaller(onA)('vm_exec', { lease_id: lease, run: { shell: 'sleep 2; echo built on a' }, detach: true });
    const job = started.structuredContent.job as string;
    assert.equal(started.structuredContent.running, true);

    const first = await okCaller(onB)('vm_exec', { lease_id: lease, run: { job } });
    assert.equal(first.structuredContent.job, job);
    assert.equal(first.structuredContent.running, true, 'B: the job runs in A');
    const done = await until(async () => {
      const r = await okCaller(onB)('vm_exec', { lease_id: lease, run: { job } });
      return r.structuredContent.running ? undefined : r.structuredContent;
    }, 'the job to end, read through B', 20_000, 200);
    assert.equal(done.exit_code, 0, JSON.stringify(done));
    assert.equal(done.stdout, 'built on a\n', 'B answers the output of A\'s command');

    const events = await store.listEvents({ lease_id: lease, kind: 'exec.detached' });
    assert.equal(events.length, 1, 'one job started');
    assert.equal(JSON.parse(events[0]!.data).pid, a.child.pid, 'by server A\'s process');
    assert.ok(auditLines(audit.b).filter((l) => l.owner === 'jobs-on-b' && l.tool === 'vm_exec' && l.lease_id === lease).length >= 2, 'the reads were B\'s');
    assert.equal((await okCaller(onB)('vm_lease_release', { lease_id: lease })).structuredContent.status, 'released');
  });

  it('A SIGKILLed mid-run: the agents\' calls go on through B; no lease lost, no machine left', { timeout: 60_000 }, async (t) => {
    const actorA = `server:${hostname()}:${a.child.pid}`;
    const portA = port(a);
    let killing: Promise<void> | undefined;
    let killed = false;
    let toAAtDeath = 0;
    let created = 0;
    const seen = new Set<string>();
    const retried: string[] = [];
    const stranded: string[] = [];
    const lapsed: string[] = [];
    const agents = await Promise.all(range(AGENTS).map((i) => agent(`kill-${i}`, `${proxy.base}/mcp`)));

    const killA = async (): Promise<void> => {
      a.child.kill('SIGKILL');
      await until(() => a.exited(), 'server A to exit', 10_000);
      toAAtDeath = proxy.connections()[portA]!;
      killed = true;
    };

    /** A call, sent again when its server died under it (the proxy gives the next try to B); an answer is asserted not to be an error. */
    const call = async (ag: Agent, tool: string, args: Record<string, unknown>): Promise<ToolResult> => {
      for (let attempt = 1; ; attempt++) {
        let r: ToolResult;
        try {
          r = await ag.call(tool, args);
        } catch (err) {
          assert.ok(killing, `${ag.name} ${tool} failed while both servers were up: ${(err as Error).message}`);
          if (attempt === 3) throw err;
          retried.push(`${ag.name} ${tool}: ${(err as Error).message}`);
          await killing;
          continue;
        }
        assert.equal(r.isError, undefined, `${ag.name} ${tool}: ${JSON.stringify(r.structuredContent)}`);
        return r;
      }
    };

    /**
     * 'ready', or 'stranded': A made the lease and died before it was ready. Provisioning runs only
     * in the process that created the lease, so through B it stays provisioning/starting (until
     * the reaper fails it once A's claim lapses).
     */
    const readyOrStranded = async (ag: Agent, lease: string): Promise<'ready' | 'stranded'> => {
      for (const end = Date.now() + 30_000; Date.now() < end;) {
        const status = (await call(ag, 'vm_lease_status', { lease_id: lease, wait_seconds: 1 })).structuredContent.status as string;
        if (status === 'ready') return 'ready';
        assert.ok(MAKING.includes(status), `${lease} is ${status}`);
        if (killed && (await store.listEvents({ lease_id: lease, kind: 'lease.created' }))[0]?.actor === actorA) return 'stranded';
      }
      throw new Error(`${lease} neither ready nor stranded within 30 s`);
    };

    const run = async (ag: Agent, i: number): Promise<void> => {
      for (let round = 0; round < ROUNDS; round++) {
        const lease = (await call(ag, 'vm_lease_create', { template: 'fake-desktop', request_id: `kill-${i}-${round}` })).structuredContent.lease_id as string;
        seen.add(lease);
        if (++created === KILL_AFTER) killing = killA();
        if (await readyOrStranded(ag, lease) === 'ready') {
          const shot = (await call(ag, 'vm_screenshot', { lease_id: lease })).structuredContent;
          const [x, y] = [50 + 10 * i, 60 + 10 * round];
          await call(ag, 'vm_click', { lease_id: lease, target: { x, y } });
          const [sx, sy] = onScreen(shot, x, y);
          assert.ok(desktopInGuest(box, lease)?.clicks.some((c) => c.x === sx && c.y === sy), `${ag.name}'s click in round ${round} is in its guest`);
        } else {
          stranded.push(lease);
        }
        let released = (await call(ag, 'vm_lease_release', { lease_id: lease })).structuredContent;
        if (released.status === 'releasing' && killed && String(released.note).includes(actorA)) {
          // A died tearing it down: its 60 s claim holds the release. Lapse it (as if that time had
          // passed) and release again: B takes the teardown over.
          lapsed.push(lease);
          assert.ok(await store.updateLease(lease, { claim_expires_at: Date.now() - 1000 }, ['releasing']), 'A\'s claim lapsed');
          released = (await call(ag, 'vm_lease_release', { lease_id: lease })).structuredContent;
        }
        assert.equal(released.status, 'released', `${ag.name} round ${round}: ${JSON.stringify(released)}`);
      }
    };
    await Promise.all(agents.map((ag, i) => run(ag, i)));

    assert.ok(killed, 'A was killed mid-run');
    assert.equal(proxy.connections()[portA], toAAtDeath, 'after its death the proxy handed A nothing: B took every call');
    // No lease lost: every lease of these request_ids is one an agent knew and released.
    const rows = (await store.listLeases({ limit: 1000 })).filter((r) => r.request_id.startsWith('kill-'));
    assert.equal(rows.length, AGENTS * ROUNDS, 'one lease per request_id');
    assert.deepEqual(new Set(rows.map((r) => r.id)), seen, 'the store holds exactly the leases the agents were given');
    for (const r of rows) assert.equal(r.status, 'released', `${r.id} (${r.request_id}): ${r.status} ${r.error_code ?? ''}`);
    // No machine left: nothing in the provider's directory, and each machine made was destroyed once.
    assert.deepEqual(fakeMachines(box), [], 'no fake machine left');
    const ledger = await readFakeLedger(box.fakeDir);
    for (const r of rows) {
      const made = ledger.filter((e) => e.op === 'create' && e.identity === r.identity).length;
      assert.ok(made <= 1, `at most one machine made for ${r.request_id}`);
      assert.equal(ledger.filter((e) => e.op === 'destroy' && e.identity === r.identity).length, made, `${r.request_id}: its machine destroyed once`);
    }
    const strandedMachines = stranded.filter((id) => ledger.some((e) => e.op === 'create' && e.identity === rows.find((r) => r.id === id)!.identity)).length;
    const createdByA = (await Promise.all(rows.map((r) => store.listEvents({ lease_id: r.id, kind: 'lease.created' })))).filter((e) => e[0]?.actor === actorA).length;
    const auditedA = new Set(auditLines(audit.a).filter((l) => l.owner.startsWith('kill-')).map((l) => l.owner));
    const auditedB = new Set(auditLines(audit.b).filter((l) => l.owner.startsWith('kill-')).map((l) => l.owner));
    assert.equal(auditedB.size, AGENTS, 'B answered every agent');
    assert.ok(auditedA.size > 0, 'A answered some before it died');
    t.diagnostic(`${rows.length} leases (${createdByA} created by A), ${stranded.length} stranded by A's death mid-provisioning and released through B (${strandedMachines} with a machine A had made, destroyed by B), ${lapsed.length} releases A had started finished by B after its claim lapsed, ${retried.length} calls retried: ${JSON.stringify(retried)}; connections A ${toAAtDeath} (then none), B ${proxy.connections()[port(b)]}`);
  });
});
