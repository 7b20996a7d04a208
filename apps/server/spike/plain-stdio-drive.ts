/** Spike: v2 client (auto) and v1 client against plain-stdio.ts. */
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const here = dirname(fileURLToPath(import.meta.url));
for (const mode of ['auto', 'legacy'] as const) {
  const c = new Client({ name: `plain-${mode}`, version: '2' }, { versionNegotiation: { mode } });
  try {
    await c.connect(new StdioClientTransport({ command: process.execPath, args: [join(here, 'plain-stdio.ts')] }));
    const r: any = await c.callTool({ name: 'render', arguments: { steps: 1, step_ms: 0 } });
    console.log(mode, c.getNegotiatedProtocolVersion(), JSON.stringify(r.structuredContent.who));
  } catch (e) { console.log(mode, 'failed', (e as Error).message.slice(0, 200)); }
  await c.close().catch(() => undefined);
}
