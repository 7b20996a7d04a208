// Shared helpers for the benchmarks: percentiles and a client on the built server binary.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const SERVER_BIN = process.env.VMHUB_SERVER_BIN ?? fileURLToPath(new URL('../apps/server/dist/bin.js', import.meta.url));

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

export async function connectServer(env = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER_BIN], env: { PATH: process.env.PATH, HOME: process.env.HOME, VMHUB_LOG_LEVEL: 'error', ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'vmhub-bench', version: '1' });
  await client.connect(transport);
  return client;
}

/** A tool caller on a connected client: an error result throws, naming the tool and its payload. */
export function toolCaller(client) {
  return async (name, args = {}) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
    return r;
  };
}

/**
 * Lease a template and wait (vm_lease_status, 20 s a poll) until it is ready; returns the lease
 * id. `created(id)` hears of the lease before the wait, so a bench releases it even if it never
 * becomes ready.
 */
export async function leaseReady(call, template, created = () => {}) {
  const lease = (await call('vm_lease_create', { template })).structuredContent.lease_id;
  created(lease);
  let status = 'provisioning';
  while (['provisioning', 'starting'].includes(status)) status = (await call('vm_lease_status', { lease_id: lease, wait_seconds: 20 })).structuredContent.status;
  if (status !== 'ready') throw new Error(`lease ${lease} ${status}`);
  return lease;
}
