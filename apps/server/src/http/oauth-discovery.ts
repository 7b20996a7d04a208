/**
 * What /mcp tells an OAuth-capable MCP client that came without a token. vmhub takes static
 * bearer tokens only; it is not an OAuth authorization server. MCP clients (the SDK's, Claude
 * Code, Cursor, opencode) answer a 401 by looking for OAuth: protected resource metadata (RFC 9728,
 * `WWW-Authenticate: Bearer resource_metadata=…`, /.well-known/oauth-protected-resource[/mcp]),
 * then authorization server metadata at the server's origin, and, finding none, Dynamic Client
 * Registration at POST /register. A bare 404 there made them report "Dynamic Client Registration
 * rejected (HTTP 404)" and nothing about the token. So:
 *   - the 401 names the metadata and says whether the token was missing or not accepted;
 *   - the metadata says: bearer tokens in the Authorization header, no authorization server;
 *   - POST /register registers nobody and answers an RFC 7591 error whose description is the fix,
 *     which is what the clients print (Claude Code: "… rejected (HTTP 400): {…missing bearer token…}").
 * There is no authorization endpoint, so no client ever opens a browser for vmhub.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const PROTECTED_RESOURCE_PATHS = ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'] as const;
export const REGISTER_PATH = '/register';

/** How to give vmhub its token, in the words every refusal uses. */
export const TOKEN_FIX = "vmhub takes no OAuth: add the header 'Authorization: Bearer <token>' (the server's VMHUB_HTTP_TOKEN, or the token of your http.tokens entry) to this server in your MCP client's config";

/** The origin the client used (Host header; https when a TLS proxy says so), else the listening address. */
export function requestOrigin(req: IncomingMessage, fallback: string): string {
  const host = req.headers.host;
  if (!host || !/^[A-Za-z0-9.\-:[\]]+$/.test(host)) return fallback;
  const proto = String(req.headers['x-forwarded-proto'] ?? '').split(',')[0]!.trim().toLowerCase() === 'https' ? 'https' : 'http';
  return `${proto}://${host}`;
}

/**
 * The 401 of /mcp (RFC 6750 §3): no error code when no token came, `invalid_token` when one did;
 * `resource_metadata` (RFC 9728 §5.1) points at what /.well-known serves.
 */
export function refuseToken(req: IncomingMessage, res: ServerResponse, base: string): { message: string } {
  const missing = req.headers.authorization === undefined;
  const challenge = [
    'Bearer realm="vmhub"',
    ...(missing ? [] : ['error="invalid_token"', 'error_description="the bearer token is wrong or revoked"']),
    `resource_metadata="${base}${PROTECTED_RESOURCE_PATHS[0]}"`,
  ].join(', ');
  res.setHeader('WWW-Authenticate', challenge);
  return { message: missing ? `missing bearer token: ${TOKEN_FIX}` : 'wrong or revoked bearer token (Authorization: Bearer <token>): check the token in this server\'s client config' };
}

/**
 * Serves the metadata and the registration refusal; false for any other path. Only while tokens
 * are required: a server without auth (the loopback opt-out) has nothing to describe.
 */
export function handleOAuthDiscovery(req: IncomingMessage, res: ServerResponse, path: string, base: string): boolean {
  const json = (status: number, body: unknown) => void res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify(body));
  if ((PROTECTED_RESOURCE_PATHS as readonly string[]).includes(path)) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'invalid_request', error_description: `${req.method} is not allowed here` }), true;
    // RFC 9728 §2: no authorization_servers: nothing issues tokens for vmhub but its operator.
    json(200, {
      resource: `${base}/mcp`,
      resource_name: 'vmhub',
      bearer_methods_supported: ['header'],
    });
    return true;
  }
  if (path === REGISTER_PATH) {
    // RFC 7591 §3.2.2: a registration error; the description is what clients show their user.
    json(400, { error: 'invalid_client_metadata', error_description: `missing bearer token: ${TOKEN_FIX}` });
    req.resume();
    return true;
  }
  return false;
}
