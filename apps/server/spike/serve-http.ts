/**
 * Spike: the v2 server over Streamable HTTP, stateless, on node:http (127.0.0.1:$PORT).
 * createMcpHandler: 2026-07-28 per request; 2025 clients through its stateless legacy fallback.
 * A bearer token names the principal (as vmhub's http/principal.ts does), passed as authInfo.
 * SPIKE_LEGACY=sessionful: 2025 clients get a session (Mcp-Session-Id) on the v2 SDK's own sessionful
 * transport, routed with isLegacyRequest; 2026-07-28 requests stay stateless.
 * SPIKE_V1=1 serves the same tools from the v1 SDK (stateless, per-request McpServer) for timing.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type AuthInfo, type McpHandlerRequestOptions } from '@modelcontextprotocol/server';
import { localhostHostValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createSpikeServer } from './tools.ts';

const port = Number(process.env.PORT ?? 0);

function authOf(req: IncomingMessage): AuthInfo | undefined {
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  if (!m) return undefined;
  return { token: m[1]!, clientId: 'spike', scopes: [], extra: { principal: `p:${m[1]}`, transport: 'http' } };
}

let handle: (req: IncomingMessage & { auth?: AuthInfo }, res: import('node:http').ServerResponse) => Promise<void>;
if (process.env.SPIKE_V1 === '1') {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { z } = await import('zod');
  const v1Sessions = new Map<string, InstanceType<typeof StreamableHTTPServerTransport>>();
  handle = async (req, res) => {
    if (process.env.SPIKE_V1_SESSION === '1') {
      // As vmhub serves today: one McpServer per Mcp-Session-Id.
      const sid = req.headers['mcp-session-id'];
      const known = typeof sid === 'string' ? v1Sessions.get(sid) : undefined;
      if (known) return known.handleRequest(req, res);
      const mcp = new McpServer({ name: 'vmhub-spike-v1', version: '0.0.0' });
      mcp.registerTool('echo', { inputSchema: { n: z.number() }, outputSchema: { n: z.number() } }, async ({ n }) => ({ structuredContent: { n }, content: [{ type: 'text', text: String(n) }] }));
      const t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (id) => { v1Sessions.set(id, t); } });
      await mcp.connect(t);
      return t.handleRequest(req, res);
    }
    const mcp = new McpServer({ name: 'vmhub-spike-v1', version: '0.0.0' });
    mcp.registerTool('echo', { inputSchema: { n: z.number() }, outputSchema: { n: z.number() } }, async ({ n }) => ({ structuredContent: { n }, content: [{ type: 'text', text: String(n) }] }));
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => { void t.close(); void mcp.close(); });
    await mcp.connect(t);
    await t.handleRequest(req, res);
  };
} else if (process.env.SPIKE_LEGACY === 'sessionful') {
  const modern = createMcpHandler((rc) => createSpikeServer(rc), { legacy: 'reject', onerror: (e) => process.stderr.write(`[spike http] ${e.message}\n`) });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  async function legacy(request: Request, options?: McpHandlerRequestOptions): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    let transport = id ? sessions.get(id) : undefined;
    if (id && !transport) return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }), { status: 404, headers: { 'content-type': 'application/json' } });
    if (!transport) {
      const t: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => { sessions.set(sid, t); } });
      t.onclose = () => { if (t.sessionId) sessions.delete(t.sessionId); };
      await createSpikeServer({ era: 'legacy-session' }).connect(t);
      transport = t;
    }
    return transport.handleRequest(request, { authInfo: options?.authInfo });
  }
  handle = toNodeHandler({ fetch: async (request, options) => (await isLegacyRequest(request)) ? legacy(request, options) : modern.fetch(request, options) }) as typeof handle;
} else {
  const mcp = createMcpHandler((rc) => createSpikeServer(rc), { onerror: (e) => process.stderr.write(`[spike http] ${e.message}\n`) });
  handle = toNodeHandler(mcp, { onerror: (e) => process.stderr.write(`[spike node] ${e.message}\n`) }) as typeof handle;
}

const validHost = localhostHostValidation();
const server = createServer((req, res) => {
  if (!validHost(req, res)) return;
  const auth = authOf(req);
  if (auth) (req as IncomingMessage & { auth?: AuthInfo }).auth = auth;
  handle(req, res).catch((e: Error) => { process.stderr.write(`[spike] ${e.stack}\n`); if (!res.headersSent) res.writeHead(500).end(); });
});
server.listen(port, '127.0.0.1', () => {
  const a = server.address();
  process.stdout.write(`LISTENING ${typeof a === 'object' && a ? a.port : port}\n`);
});
process.on('SIGTERM', () => { server.close(); process.exit(0); });
