/**
 * Spike: per-call round trip of vmhub's router, tools/call vm_health, HTTP on 127.0.0.1, same run:
 * SDK v2 (createMcpHandler: a fresh McpServer + router.register per request) vs SDK v1 as main
 * serves today (sessionful). V1CORE: see router-serve-v1.ts.
 *   V1CORE=/tmp/v1core node spike/router-bench.ts [--calls 200]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as V2Client, StreamableHTTPClientTransport as V2Http } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = dirname(fileURLToPath(import.meta.url));
const CALLS = Number(process.argv[process.argv.indexOf('--calls') + 1]) || 200;
const children: ChildProcess[] = [];
async function start(file: string, args: string[] = []): Promise<URL> {
  const child = spawn(process.execPath, [join(here, file), ...args], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d) => { buf += d; const m = /LISTENING (\d+)/.exec(buf); if (m) resolve(Number(m[1])); });
    child.on('exit', (c) => reject(new Error(`${file} exited ${c}`)));
  });
  return new URL(`http://127.0.0.1:${port}/mcp`);
}
async function time(label: string, kind: 'v2-auto' | 'v1', url: URL): Promise<void> {
  const headers = { authorization: 'Bearer bench' };
  const c: any = kind === 'v1' ? new V1Client({ name: 'bench-v1', version: '1' }) : new V2Client({ name: 'bench-v2', version: '2' }, { versionNegotiation: { mode: 'auto' } });
  await c.connect(kind === 'v1' ? new V1Http(url, { requestInit: { headers } }) : new V2Http(url, { requestInit: { headers } }));
  await c.listTools();
  const call = () => (kind === 'v1' ? c.callTool({ name: 'vm_health', arguments: {} }, undefined, {}) : c.callTool({ name: 'vm_health', arguments: {} }));
  for (let i = 0; i < 20; i++) await call();
  const ms: number[] = [];
  for (let i = 0; i < CALLS; i++) { const s = performance.now(); await call(); ms.push(performance.now() - s); }
  await c.close();
  ms.sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(2);
  console.log(JSON.stringify({ server: label, client: kind, calls: CALLS, p50_ms: q(0.5), p90_ms: q(0.9), p99_ms: q(0.99) }));
}
try {
  const v2 = await start('router-serve.ts', ['http']);
  const v1 = await start('router-serve-v1.ts');
  console.log(`## vmhub router, tools/call vm_health, ${CALLS} calls`);
  for (let round = 0; round < 3; round++) {
    await time('v2 router (stateless, McpServer + register per request)', 'v2-auto', v2);
    await time('v2 router (legacy leg, stateless)', 'v1', v2);
    await time('v1 router, sessionful (main today)', 'v1', v1);
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
}
