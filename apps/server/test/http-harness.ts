/**
 * The BUILT server over HTTP for tests that run several server processes on one store: start
 * `dist/bin.js --http` on a free port with a sandbox's config, an MCP agent over Streamable HTTP
 * with a bearer token, the live JSON API as a script calls it, and the fake desktop's state read
 * in the guest's own files (the test's eyes, not an agent's answer).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DesktopState, MachineRecord } from '@vmhub/conformance/fake';
import { until } from '@vmhub/test-kit';
import { sandbox, type HttpServer, type Sandbox } from './harness.ts';

export { startHttp, type HttpServer } from './harness.ts';

export type ToolResult = CallToolResult & { structuredContent?: any };

export interface HttpAgent {
  call(tool: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

/** An SDK Client of `server`'s /mcp authenticated with `token`. */
export async function bearerClient(server: HttpServer, token: string, name = 'http-client'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

export interface HttpSuite {
  box: Sandbox;
  /** The running server; a test that restarts it puts the new one here (the after hook stops it). */
  srv: HttpServer;
  /** A bearerClient of `srv`, closed by the after hook. */
  client(token: string, name?: string): Promise<Client>;
}

/**
 * The built server over HTTP for the tests of the enclosing describe (or file): before them,
 * `sandbox(config, templates)` and `start(box)`; after them, the clients opened with `client()`
 * closed, the server stopped and the sandbox removed.
 */
export function httpSuite(start: (box: Sandbox) => Promise<HttpServer>, config: Record<string, unknown> = {}, templates?: unknown[]): HttpSuite {
  const clients: Client[] = [];
  const suite: HttpSuite = {
    box: undefined as unknown as Sandbox,
    srv: undefined as unknown as HttpServer,
    client: async (token, name) => {
      const c = await bearerClient(suite.srv, token, name);
      clients.push(c);
      return c;
    },
  };
  before(async () => {
    suite.box = sandbox(config, templates);
    suite.srv = await start(suite.box);
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await suite.srv?.stop();
    suite.box?.cleanup();
  });
  return suite;
}

/** SIGHUP to `srv`; resolves once its log shows `expect` once more (the outcome of its reload). */
export async function sighup(srv: HttpServer, expect: RegExp = /http tokens reloaded/): Promise<void> {
  const count = () => (srv.stderr().match(new RegExp(expect, 'g')) ?? []).length;
  const seen = count();
  srv.child.kill('SIGHUP');
  await until(() => count() > seen, `log ${expect}`, 15_000);
}

/** Wait (vm_lease_status, up to 20 polls of 5 s) until lease `id` is ready, asked through `c`. */
export async function clientReady(c: Client, id: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const r = await c.callTool({ name: 'vm_lease_status', arguments: { lease_id: id, wait_seconds: 5 } }) as ToolResult;
    if (r.structuredContent?.status === 'ready') return;
  }
  throw new Error(`lease ${id} never became ready`);
}

/** An MCP client of `server` authenticated with `token`. */
export async function httpAgent(server: HttpServer, token: string, name = 'http-agent'): Promise<HttpAgent> {
  const client = await bearerClient(server, token, name);
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

/**
 * The record of every fake machine in the sandbox's provider directory (a destroyed machine's
 * directory is gone; one still being written, without its record yet, is skipped).
 */
export function fakeMachines(box: Sandbox): MachineRecord[] {
  const machines = join(box.fakeDir, 'machines');
  let names: string[];
  try { names = readdirSync(machines); } catch { return []; }
  return names.flatMap((n) => {
    try { return [JSON.parse(readFileSync(join(machines, n, 'machine.json'), 'utf8')) as MachineRecord]; } catch { return []; }
  });
}

/** A fake lease's desktop state as its guest's file holds it (undefined before the first change); throws when the lease has no machine. */
export function desktopInGuest(box: Sandbox, leaseId: string): DesktopState | undefined {
  const machine = fakeMachines(box).find((m) => m.lease_id === leaseId);
  if (!machine) throw new Error(`no fake machine for lease ${leaseId}`);
  try {
    return JSON.parse(readFileSync(join(box.fakeDir, 'machines', machine.external_id, 'root', '.vmhub-desktop.json'), 'utf8')) as DesktopState;
  } catch {
    return undefined;
  }
}

/** Everything typed on a fake lease's desktop so far, read from the file in its guest's root. */
export function typedInGuest(box: Sandbox, leaseId: string): string {
  return desktopInGuest(box, leaseId)?.typed ?? '';
}
