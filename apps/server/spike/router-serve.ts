/**
 * Spike: vmhub's real tool router (packages/core/src/router, from source) registered on the SDK v2
 * McpServer, behind the fake host of router-host.ts (vm_lease_status tells whose lease it is: the
 * principal from CallExtra.authInfo, and who the client is: CallExtra.client).
 *   node spike/router-serve.ts stdio          serveStdio
 *   PORT=0 node spike/router-serve.ts http    createMcpHandler on node:http, bearer token = principal
 */
import { createServer, type IncomingMessage } from 'node:http';
import { createMcpHandler, McpServer, type AuthInfo, type Tool } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createRouter, type CallExtra } from '../../../packages/core/src/router/index.ts';
import { host } from './router-host.ts';

const router = createRouter(host);

/** As apps/server/src/mcp-app.ts's appToolList, but from the request's declared capabilities. */
function appToolList(tools: Tool[], extra: CallExtra): Tool[] {
  const ext = extra.client?.capabilities?.extensions?.['io.modelcontextprotocol/ui'] as { mimeTypes?: string[] } | undefined;
  if (!ext?.mimeTypes?.includes('text/html;profile=mcp-app')) return tools;
  return tools.map((t) => (t.name === 'vm_screenshot' ? { ...t, _meta: { ...t._meta, ui: { resourceUri: 'ui://vmhub/lease-view' } } } : t));
}

function factory(): McpServer {
  const mcp = new McpServer({ name: 'vmhub', version: 'spike' }, { capabilities: { logging: {} } });
  router.register(mcp, { listTools: appToolList });
  return mcp;
}

if (process.argv[2] === 'stdio') {
  // serveStdio passes no authInfo: the factory's instance answers for the local principal.
  serveStdio(() => {
    const mcp = factory();
    return mcp;
  }, { onerror: (e) => process.stderr.write(`[router stdio] ${e.message}\n`) });
} else {
  const handler = toNodeHandler(createMcpHandler(() => factory(), { onerror: (e) => process.stderr.write(`[router http] ${e.message}\n`) }));
  const server = createServer((req: IncomingMessage & { auth?: AuthInfo }, res) => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (m) req.auth = { token: m[1]!, clientId: 'spike', scopes: [], extra: { principal: `p:${m[1]}` } };
    void handler(req, res);
  });
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write(`LISTENING ${(server.address() as { port: number }).port}\n`));
}
