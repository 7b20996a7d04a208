// Issue 28 point 5: the live view for the people who use stdio clients, and take-over shared by
// every server process of a store. The BUILT server, each process a real one:
//   - a stdio server (what Claude Desktop/Code or Cursor spawn; its principal is the OS user) and
//     an HTTP server on one SQLite file: the stdio agent's lease is on the dashboard of the
//     "default" token (http.local_leases_dashboard), not on another principal's, and the MCP tools
//     of "default" still cannot reach it; a take-over through the HTTP live API makes the stdio
//     agent's vm_type and vm_click answer HUMAN_CONTROL — the text does not reach the guest (read
//     in the fake machine's own files) — and the hand-back lets it through with the note, once;
//   - with http.local_leases_dashboard false, the dashboard of "default" does not show it;
//   - two HTTP servers on one PostgreSQL database: the take-over made through one stops the
//     agent of the other, and the note reaches that agent once.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPostgres, type PostgresServer } from '@vmhub/postgres-testing';
import { connect, errorCode, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';
import { httpAgent, liveApi, startHttp, typedInGuest, type HttpAgent, type HttpServer } from './http-harness.ts';

const TOKEN = 'shared-takeover-default-5b1c9e';
const OTHER = 'shared-takeover-other-8d3f27';
const ENV = { VMHUB_HTTP_TOKEN: TOKEN, VMHUB_TOKEN_OTHER: OTHER };
const NOTE = 'I closed the dialog; carry on';

interface Agent { call(tool: string, args?: Record<string, unknown>): Promise<any> }

/**
 * The take-over round trip between the agent of one process and the person on another's live
 * API: refused input that never reaches the guest, then the hand-back, its note delivered once.
 */
async function takeoverRoundTrip(box: Sandbox, agent: Agent, person: HttpServer, lease: string, tag: string): Promise<void> {
  const blocked = `blocked-${tag}`;
  const allowed = `allowed-${tag}`;
  const taken = await liveApi(person, TOKEN, `/api/leases/${lease}/takeover`, {});
  assert.equal(taken.status, 200, JSON.stringify(taken.json));
  assert.equal(taken.json.control, 'human');

  const typed = await agent.call('vm_type', { lease_id: lease, text: blocked });
  assert.equal(errorCode(typed), 'HUMAN_CONTROL', `vm_type through the other process: ${JSON.stringify(typed.structuredContent)}`);
  const clicked = await agent.call('vm_click', { lease_id: lease, x: 100, y: 100 });
  assert.equal(errorCode(clicked), 'HUMAN_CONTROL', JSON.stringify(clicked.structuredContent));
  // Watching keeps working and carries no note while the person holds the lease.
  const watched = await agent.call('vm_screenshot', { lease_id: lease });
  assert.equal(watched.isError, undefined, JSON.stringify(watched.structuredContent));
  assert.equal(watched.structuredContent.human_note, undefined);
  assert.ok(!typedInGuest(box, lease).includes(blocked), 'the refused text never reached the guest');
  assert.equal((await liveApi(person, TOKEN, `/api/leases/${lease}`)).json.control, 'human');

  const back = await liveApi(person, TOKEN, `/api/leases/${lease}/handback`, { note: NOTE });
  assert.equal(back.status, 200, JSON.stringify(back.json));
  const through = await agent.call('vm_type', { lease_id: lease, text: allowed });
  assert.equal(through.isError, undefined, JSON.stringify(through.structuredContent));
  assert.equal(through.structuredContent.human_note, NOTE, 'the next result carries the note');
  assert.equal(typedInGuest(box, lease), allowed, 'only the text typed after the hand-back is in the guest');
  const next = await agent.call('vm_screenshot', { lease_id: lease });
  assert.equal(next.structuredContent.human_note, undefined, 'the note comes once');
  const view = (await liveApi(person, TOKEN, `/api/leases/${lease}`)).json;
  assert.equal(view.control, 'agent');
  assert.equal(view.note, undefined, 'delivered: no note pending');
}

describe('a stdio server and an HTTP server on one SQLite store', () => {
  let box: Sandbox;
  let stdio: Session;
  let http: HttpServer;
  let unmapped: HttpServer | undefined;
  let defaultAgent: HttpAgent;
  let lease = '';

  before(async () => {
    box = sandbox({ http: { tokens: [{ principal: 'other', token_env: 'VMHUB_TOKEN_OTHER' }] } });
    stdio = await connect(box, {}, 'claude-desktop');
    http = await startHttp(box, ENV);
    defaultAgent = await httpAgent(http, TOKEN);
    const created = await stdio.call('vm_lease_create', { template: 'fake-desktop' });
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    lease = created.structuredContent.lease_id;
    assert.equal((await waitReady(stdio, lease)).status, 'ready');
  });

  after(async () => {
    await defaultAgent?.close().catch(() => undefined);
    await stdio?.close().catch(() => undefined);
    http?.stop();
    unmapped?.stop();
    box?.cleanup();
  });

  it('the stdio lease is on the dashboard of the default token, and only there', async () => {
    const list = await liveApi(http, TOKEN, '/api/leases');
    assert.equal(list.status, 200);
    const row = list.json.leases.find((l: any) => l.lease_id === lease);
    assert.ok(row, `the stdio lease ${lease} is listed for "default": ${JSON.stringify(list.json.leases.map((l: any) => l.lease_id))}`);
    assert.equal(row.control, 'agent');
    assert.equal((await liveApi(http, TOKEN, `/api/leases/${lease}`)).json.status, 'ready');
    // Another principal's dashboard does not see it…
    assert.ok(!(await liveApi(http, OTHER, '/api/leases')).json.leases.some((l: any) => l.lease_id === lease));
    assert.equal((await liveApi(http, OTHER, `/api/leases/${lease}`)).status, 404);
    // …and the MCP tools of "default" are not widened: the lease is as unknown as one that never existed.
    assert.equal(errorCode(await defaultAgent.call('vm_lease_status', { lease_id: lease })), 'NOT_FOUND');
    assert.equal(errorCode(await defaultAgent.call('vm_type', { lease_id: lease, text: 'x' })), 'NOT_FOUND');
    assert.ok(!(await defaultAgent.call('vm_lease_list', {})).structuredContent.leases.some((l: any) => l.lease_id === lease));
  });

  it('a take-over through the HTTP live API stops the stdio agent; the hand-back note reaches it once', async () => {
    await takeoverRoundTrip(box, stdio, http, lease, 'sqlite');
  });

  it('with http.local_leases_dashboard false the default token does not see the local user\'s leases', async () => {
    const config = join(box.dir, 'unmapped.json');
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(box.configFile, 'utf8')), http: { local_leases_dashboard: false } }));
    unmapped = await startHttp(box, { ...ENV, VMHUB_CONFIG: config });
    assert.ok(!(await liveApi(unmapped, TOKEN, '/api/leases')).json.leases.some((l: any) => l.lease_id === lease));
    assert.equal((await liveApi(unmapped, TOKEN, `/api/leases/${lease}/takeover`, {})).status, 404);
  });
});

describe('two HTTP servers on one PostgreSQL database', () => {
  let pg: PostgresServer;
  let box: Sandbox;
  let a: HttpServer;
  let b: HttpServer;
  let agent: HttpAgent;

  before(async () => {
    pg = await startPostgres();
    const url = await pg.createDatabase('shared_takeover');
    box = sandbox();
    [a, b] = await Promise.all([startHttp(box, { ...ENV, VMHUB_DB: url }), startHttp(box, { ...ENV, VMHUB_DB: url })]);
    agent = await httpAgent(a, TOKEN);
  });

  after(async () => {
    await agent?.close().catch(() => undefined);
    a?.stop();
    b?.stop();
    pg?.destroy();
    box?.cleanup();
  });

  it('a take-over through server B stops the agent of server A; the note reaches it once', async () => {
    const created = await agent.call('vm_lease_create', { template: 'fake-desktop' });
    assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
    const lease = created.structuredContent.lease_id;
    for (let status = ''; status !== 'ready';) {
      const s = await agent.call('vm_lease_status', { lease_id: lease, wait_seconds: 5 });
      status = s.structuredContent.status;
      assert.ok(['provisioning', 'starting', 'ready'].includes(status), JSON.stringify(s.structuredContent));
    }
    await takeoverRoundTrip(box, agent, b, lease, 'postgres');
  });
});
