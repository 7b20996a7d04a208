/**
 * @vmhub/server — the vmhub MCP server. Most users run the `vmhub-server` bin
 * (`npx @vmhub/server`); embedders call createVmhubServer() and connect a transport.
 */
export { createVmhubHub, createVmhubServer, INSTRUCTIONS, type VmhubHub, type VmhubServer, type VmhubSession } from './server.ts';
export { serveHttp, type HttpOptions } from './http.ts';
export { checkCloneUrl } from './clone.ts';
export { VERSION } from './catalog.ts';
