/**
 * Spike baseline: vmhub's router as main has it today (SDK v1: one McpServer per Mcp-Session-Id),
 * behind the same fake host, for timing against router-serve.ts. V1CORE names a copy of main's
 * packages/core/src (git archive), whose SDK v1 register() this uses.
 *   V1CORE=/tmp/v1core PORT=0 node spike/router-serve-v1.ts
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { host } from './router-host.ts';

const { createRouter } = await import(`${process.env.V1CORE}/packages/core/src/router/index.ts`);
const router = createRouter(host);
const sessions = new Map<string, StreamableHTTPServerTransport>();
const server = createServer(async (req, res) => {
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  if (m) (req as { auth?: unknown }).auth = { token: m[1]!, clientId: 'spike', scopes: [], extra: { principal: `p:${m[1]}` } };
  const sid = req.headers['mcp-session-id'];
  const known = typeof sid === 'string' ? sessions.get(sid) : undefined;
  if (known) return known.handleRequest(req, res);
  const mcp = new McpServer({ name: 'vmhub', version: 'v1-baseline' }, { capabilities: { logging: {} } });
  router.register(mcp);
  const t: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => { sessions.set(id, t); } });
  await mcp.connect(t);
  await t.handleRequest(req, res);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write(`LISTENING ${(server.address() as { port: number }).port}\n`));
