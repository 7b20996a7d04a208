/**
 * @vmhub/server — the vmhub MCP server. Most users run the `vmhub-server` bin
 * (`npx @vmhub/server`); embedders call createVmhubServer() and connect a transport.
 */
export { createVmhubServer, INSTRUCTIONS, type VmhubServer } from './server.ts';
export { checkCloneUrl } from './clone.ts';
export { VERSION } from './catalog.ts';
