// An OAuth-capable MCP client without the token (the SDK's own client auth flow, as Claude Code,
// Cursor and opencode run it): /mcp answers 401 with RFC 9728 resource metadata that says bearer
// tokens in the header and names no authorization server; the discovery that follows ends in an
// RFC 7591 refusal whose description is "missing bearer token" and the header to add. No client
// is registered, no browser is sent anywhere, no token is minted.
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sandbox, startHttp, type HttpServer } from './harness.ts';

const TOKEN = 'oauth-test-token-5d1c';
const box = sandbox();
const servers: HttpServer[] = [];
after(async () => { await Promise.all(servers.map((s) => s.stop())); box.cleanup(); });

async function start(env: Record<string, string>): Promise<string> {
  const server = await startHttp(box, { HOME: box.dir, ...env });
  servers.push(server);
  return server.url;
}

const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'oauth-test', version: '1' } } };
const post = (url: string, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });

describe('server: HTTP clients without the token are told so in OAuth terms', () => {
  let url = '';
  let base = '';
  before(async () => { url = await start({ VMHUB_HTTP_TOKEN: TOKEN }); base = url.replace(/\/mcp$/, ''); });

  it('401 names the resource metadata; a missing token has no error code, a wrong one is invalid_token', async () => {
    const missing = await post(url);
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get('www-authenticate'), `Bearer realm="vmhub", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
    assert.match(((await missing.json()) as { error: { message: string } }).error.message, /^missing bearer token: vmhub takes no OAuth: add the header 'Authorization: Bearer <token>'/);
    const wrong = await post(url, { Authorization: 'Bearer nope' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate')!, /^Bearer realm="vmhub", error="invalid_token", error_description="[^"]+", resource_metadata="/);
    assert.match(((await wrong.json()) as { error: { message: string } }).error.message, /^wrong or revoked bearer token/);
  });

  it('the protected resource metadata (RFC 9728): this resource, bearer tokens in the header, no authorization server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const r = await fetch(`${base}${path}`);
      assert.equal(r.status, 200, path);
      assert.deepEqual(await r.json(), { resource: url, resource_name: 'vmhub', bearer_methods_supported: ['header'] });
    }
    assert.equal((await fetch(`${base}/.well-known/oauth-authorization-server`)).status, 404, 'vmhub is no authorization server');
    // Behind a TLS proxy: the URL the client used (fetch cannot set Host; node:http can).
    const proxied = await new Promise<string>((resolve, reject) => {
      get(`${base}/.well-known/oauth-protected-resource/mcp`, { headers: { Host: 'vmhub.example:8443', 'X-Forwarded-Proto': 'https' } }, (res) => {
        let body = '';
        res.on('data', (d) => { body += d; }).on('end', () => resolve(body));
      }).on('error', reject);
    });
    assert.equal(JSON.parse(proxied).resource, 'https://vmhub.example:8443/mcp');
  });

  it("the SDK client's OAuth flow ends in \"missing bearer token\": nothing registered, no authorization, no token", async () => {
    const calls: string[] = [];
    const requests: string[] = [];
    const provider: OAuthClientProvider = {
      get redirectUrl() { return 'http://127.0.0.1:1/callback'; },
      get clientMetadata() { return { client_name: 'oauth-test', redirect_uris: ['http://127.0.0.1:1/callback'] }; },
      clientInformation: () => undefined,
      saveClientInformation: () => void calls.push('saveClientInformation'),
      tokens: () => undefined,
      saveTokens: () => void calls.push('saveTokens'),
      redirectToAuthorization: () => void calls.push('redirectToAuthorization'),
      saveCodeVerifier: () => void calls.push('saveCodeVerifier'),
      codeVerifier: () => '',
    };
    const recording: typeof fetch = async (input, initArg) => {
      const r = await fetch(input, initArg);
      requests.push(`${initArg?.method ?? 'GET'} ${new URL(String(input instanceof Request ? input.url : input)).pathname} ${r.status}`);
      return r;
    };
    const client = new Client({ name: 'oauth-test', version: '1' });
    await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: recording })),
      (e: Error) => /missing bearer token: vmhub takes no OAuth: add the header 'Authorization: Bearer <token>'/.test(e.message));
    assert.deepEqual(calls, [], 'no client information, token or redirect');
    assert.ok(requests.includes('POST /mcp 401'), requests.join(', '));
    assert.ok(requests.includes('GET /.well-known/oauth-protected-resource/mcp 200'), requests.join(', '));
    // Registration is refused, never granted: the refusal carries the fix the client shows.
    assert.deepEqual(requests.filter((r) => r.startsWith('POST /register')), ['POST /register 400']);
    assert.ok(!requests.some((r) => /authorize|token/.test(r)), requests.join(', '));
    await client.close();
  });

  it('a server without auth (the loopback opt-out) describes nothing', async () => {
    const open = (await start({ VMHUB_HTTP_ALLOW_NO_AUTH: '1' })).replace(/\/mcp$/, '');
    assert.equal((await fetch(`${open}/.well-known/oauth-protected-resource/mcp`)).status, 404);
    assert.equal((await fetch(`${open}/register`, { method: 'POST', body: '{}' })).status, 404);
  });
});
