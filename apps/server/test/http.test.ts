// MCP over Streamable HTTP: the built binary with --http, driven by the SDK Client's HTTP
// transport. Token required (or an explicit loopback opt-out), wrong tokens and foreign origins
// refused, sessions independent over one shared runtime.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sandbox, startHttp, type HttpServer, type Sandbox } from './harness.ts';

const TOKEN = 'test-token-7f3a';

/** Why a start with `args` and `env` failed ("server exited <code>: <its stderr>"), or 'started'. */
async function refusal(box: Sandbox, args: string[], env: Record<string, string> = {}): Promise<string> {
  return startHttp(box, env, args).then(async (s) => { await s.stop(); return 'started'; }, (err: Error) => err.message);
}

async function client(url: string, token = TOKEN): Promise<Client> {
  const c = new Client({ name: 'http-test', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return c;
}

describe('server: MCP over Streamable HTTP', () => {
  let box: Sandbox;
  let server: HttpServer | undefined;
  let url = '';
  before(async () => {
    box = sandbox();
    server = await startHttp(box, { VMHUB_HTTP_TOKEN: TOKEN });
    url = server.url;
  });
  after(async () => { await server?.stop(); box.cleanup(); });

  it('refuses to start without a token, except on loopback with an explicit opt-out', async () => {
    assert.match(await refusal(box, ['--port', '0', '--host', '0.0.0.0']), /^server exited 2: [\s\S]*without a bearer token/);
    assert.match(await refusal(box, ['--port', '0']), /^server exited 2: [\s\S]*VMHUB_HTTP_ALLOW_NO_AUTH/);
    assert.equal(await refusal(box, ['--port', '0'], { VMHUB_HTTP_ALLOW_NO_AUTH: '1' }), 'started');
    assert.match(await refusal(box, ['--port', '0', '--host', '0.0.0.0'], { VMHUB_HTTP_ALLOW_NO_AUTH: '1' }), /^server exited 2: /, 'the opt-out never applies off loopback');
  });

  it('answers 401 without the token and 403 for a foreign Origin', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    assert.equal((await fetch(url, { method: 'POST', headers, body: JSON.stringify(init) })).status, 401);
    assert.equal((await fetch(url, { method: 'POST', headers: { ...headers, Authorization: 'Bearer nope' }, body: JSON.stringify(init) })).status, 401);
    assert.equal((await fetch(url, { method: 'POST', headers: { ...headers, Authorization: `Bearer ${TOKEN}`, Origin: 'http://evil.example' }, body: JSON.stringify(init) })).status, 403);
    assert.equal((await fetch(url.replace('/mcp', '/other'), { headers: { Authorization: `Bearer ${TOKEN}` } })).status, 404);
    assert.equal((await fetch(url, { method: 'POST', headers: { ...headers, Authorization: `Bearer ${TOKEN}` }, body: '{not json' })).status, 400);
  });

  it('serves the tools and a lease lifecycle to two independent sessions', async () => {
    const [a, b] = await Promise.all([client(url), client(url)]);
    assert.equal((await a.listTools()).tools.length, 32);
    const created = (await a.callTool({ name: 'vm_lease_create', arguments: { template: 'fake-desktop', request_id: 'http-1' } })).structuredContent as any;
    let status = created.status;
    for (let i = 0; i < 50 && status !== 'ready'; i++) status = ((await b.callTool({ name: 'vm_lease_status', arguments: { lease_id: created.lease_id, wait_seconds: 2 } })).structuredContent as any).status;
    assert.equal(status, 'ready', 'the other session sees the lease');
    const shot = await a.callTool({ name: 'vm_screenshot', arguments: { lease_id: created.lease_id } });
    assert.ok((shot.content as any[]).some((c) => c.type === 'image'));
    const released = (await b.callTool({ name: 'vm_lease_release', arguments: { lease_id: created.lease_id } })).structuredContent as any;
    assert.equal(released.status, 'released');
    await Promise.all([a.close(), b.close()]);
  });
});
