/** Spike: McpServer.connect(StdioServerTransport) without serveStdio — does a 2026-07-28 client get served? */
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createSpikeServer } from './tools.ts';

await createSpikeServer({ era: 'plain-connect' }).connect(new StdioServerTransport());
