// Test helper: the official SDK client against a stand-in, as the vmhub adapter talks to it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startStandin, type Standin, type StandinOptions } from '../src/index.ts';

export const KEY = 'test-key-0123456789';

export interface Conn {
  s: Standin;
  client: Client;
  call(name: string, args?: Record<string, unknown>, opts?: { signal?: AbortSignal }): Promise<CallToolResult & { structuredContent?: { result?: string } }>;
  text(name: string, args?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function connectTo(s: Standin, key: string | undefined = KEY, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'standin-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers } } }));
  return client;
}

export async function open(opts: StandinOptions = {}): Promise<Conn> {
  const s = await startStandin({ authKey: KEY, ...opts });
  const client = await connectTo(s);
  const call: Conn['call'] = async (name, args = {}, o = {}) => (await client.callTool({ name, arguments: args }, undefined, o)) as never;
  return {
    s,
    client,
    call,
    async text(name, args) {
      const r = await call(name, args);
      const t = r.content[0];
      if (r.isError || t?.type !== 'text') throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
      return t.text;
    },
    async close() {
      await client.close();
      await s.close();
    },
  };
}
