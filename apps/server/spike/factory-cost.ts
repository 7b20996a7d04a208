import { McpServer } from '@modelcontextprotocol/server';
import { createRouter } from '/work/v2-spike/packages/core/src/router/index.ts';
import { host } from '/work/v2-spike/apps/server/spike/router-host.ts';
const router = createRouter(host);
for (let i = 0; i < 200; i++) router.register(new McpServer({ name: 'x', version: '0' }));
const n = 2000, s = performance.now();
for (let i = 0; i < n; i++) router.register(new McpServer({ name: 'x', version: '0' }));
console.log(`McpServer + router.register (32 tools): ${((performance.now() - s) / n * 1000).toFixed(0)} µs each`);
const s2 = performance.now();
for (let i = 0; i < n; i++) new McpServer({ name: 'x', version: '0' }, { capabilities: { tools: {} } });
console.log(`McpServer alone: ${((performance.now() - s2) / n * 1000).toFixed(0)} µs each`);
const t = new McpServer({ name: 'x', version: '0' });
const s3 = performance.now();
for (let i = 0; i < n; i++) { const m = new McpServer({ name: 'x', version: '0' }); (m as any).registerTool('a' + (i % 1), { inputSchema: (await import('zod')).z.looseObject({}) }, () => ({ content: [] })); }
console.log(`McpServer + 1 registerTool: ${((performance.now() - s3) / n * 1000).toFixed(0)} µs each`);
void t;
