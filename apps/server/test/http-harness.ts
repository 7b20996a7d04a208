/**
 * The BUILT server over HTTP for tests that run several server processes on one store: start
 * `dist/bin.js --http` on a free port with a sandbox's config, an MCP agent over Streamable HTTP
 * with a bearer token, the live JSON API as a script calls it, and the fake desktop's state read
 * in the guest's own files (the test's eyes, not an agent's answer).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, type Sandbox } from './harness.ts';

export interface HttpServer {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  base: string;
  stop(): void;
}

/** `env`: the tokens (VMHUB_HTTP_TOKEN…), VMHUB_DB, VMHUB_CONFIG to use another config file. */
export function startHttp(box: Sandbox, env: Record<string, string>): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--http', '--host', '127.0.0.1', '--port', '0'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => {
      stderr += d;
      const m = /at (http:\/\/\S+)\/mcp/.exec(stderr);
      if (m) resolve({ child, base: m[1]!, stop: () => { child.kill('SIGTERM'); } });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  });
}

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
