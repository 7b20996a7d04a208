/**
 * The BUILT server over HTTP for tests that run several server processes on one store: start
 * `dist/bin.js --http` on a free port with a sandbox's config, an MCP agent over Streamable HTTP
 * with a bearer token, the live JSON API as a script calls it, and the fake desktop's state read
 * in the guest's own files (the test's eyes, not an agent's answer).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HttpServer, Sandbox } from './harness.ts';

export { startHttp, type HttpServer } from './harness.ts';

export type ToolResult = CallToolResult & { structuredContent?: any };

export interface HttpAgent {
  call(tool: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

/** An MCP client of `server` authenticated with `token`. */
export async function httpAgent(server: HttpServer, token: string, name = 'http-agent'): Promise<HttpAgent> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return {
    call: async (tool, args = {}) => await client.callTool({ name: tool, arguments: args }) as ToolResult,
    close: () => client.close(),
  };
}

/** The live API as a script calls it: bearer token, JSON body for POST. */
export async function liveApi(server: HttpServer, token: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json().catch(() => undefined) };
}

/** Everything typed on a fake lease's desktop so far, read from the file in its guest's root. */
export function typedInGuest(box: Sandbox, leaseId: string): string {
  const machines = join(box.fakeDir, 'machines');
  for (const name of readdirSync(machines)) {
    const record = JSON.parse(readFileSync(join(machines, name, 'machine.json'), 'utf8')) as { lease_id: string };
    if (record.lease_id !== leaseId) continue;
    try {
      return (JSON.parse(readFileSync(join(machines, name, 'root', '.vmhub-desktop.json'), 'utf8')) as { typed: string }).typed;
    } catch {
      return '';
    }
  }
  throw new Error(`no fake machine for lease ${leaseId}`);
}
