/**
 * @vmhub/server — the vmhub MCP server. Most users run the `vmhub-server` bin
 * (`npx @vmhub/server`); embedders call createVmhubServer() and serve its factory
 * (`serveStdio(server.factory, {transport})` from @modelcontextprotocol/server/stdio), or take one
 * McpServer from createVmhubHub().session() and connect a transport to it.
 */
export { createVmhubHub, createVmhubServer, INSTRUCTIONS, type FullVmhubHub, type SessionOptions, type VmhubHub, type VmhubServer, type VmhubSession } from './server.ts';
export { serveHttp, type HttpOptions } from './http.ts';
export { checkCloneUrl } from './clone.ts';
export { VERSION } from './catalog.ts';
