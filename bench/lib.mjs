// Shared helpers for the benchmarks: percentiles and a client on the built server binary.
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { POOL_PRINCIPAL, Store } from '@vmhub/store';

export const SERVER_BIN = process.env.VMHUB_SERVER_BIN ?? fileURLToPath(new URL('../apps/server/dist/bin.js', import.meta.url));

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

export async function connectServer(env = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER_BIN], env: { PATH: process.env.PATH, HOME: process.env.HOME, VMHUB_LOG_LEVEL: 'error', VMHUB_TOOLSETS: 'all', ...env }, stderr: 'pipe' });
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

/**
 * The floor of a cold Docker desktop create, the engine alone: `docker run -d` of the golden, then
 * ONE `docker exec` that polls inside the container every 10 ms until the X display answers
 * (`xdpyinfo`) and then until the window manager answers (`wmctrl -m`), each moment taken when
 * its line reaches this process. vmhub's ready waits for the window manager too, so
 * `until_window_manager` is the floor it is held to; `until_display` is the engine and Xvfb alone.
 * One sample; a bench pairs them with its own creates.
 */
async function dockerRunFloorOnce(golden, name = 'floor') {
  const { spawn, execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const run = promisify(execFile);
  const script = 'until xdpyinfo >/dev/null 2>&1; do sleep 0.01; done; echo display; until wmctrl -m >/dev/null 2>&1; do sleep 0.01; done; echo wm';
  const container = `vmhub-bench-${name}-${process.pid}`;
  const t = performance.now();
  let display;
  let wm;
  try {
    await run('docker', ['run', '-d', '--network', 'none', '--name', container, '-e', 'VMHUB_SCREEN=1280x800x24', golden]);
    await new Promise((resolve, reject) => {
      const p = spawn('docker', ['exec', '-u', 'user', '-e', 'DISPLAY=:0', container, 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      p.stdout.on('data', (d) => {
        out += d;
        if (out.includes('display') && display === undefined) display = performance.now() - t;
        if (out.includes('wm') && wm === undefined) wm = performance.now() - t;
      });
      p.on('error', reject);
      p.on('close', (code) => (code === 0 && wm !== undefined ? resolve() : reject(new Error(`floor probe exited ${code}`))));
    });
  } finally {
    await run('docker', ['rm', '-f', container]).catch(() => undefined);
  }
  return { display_ms: display, window_manager_ms: wm };
}

/**
 * A floor to pair with a bench's own creates: `sample(i)` takes one dockerRunFloorOnce of
 * `golden`, `stats()` gives the figures of all taken so far.
 */
export function floorSampler(golden, name) {
  const display = [];
  const wm = [];
  const stats = (xs) => ({ median_ms: round(percentile(xs, 50)), max_ms: round(Math.max(...xs)), n: xs.length });
  return {
    async sample(i) {
      const one = await dockerRunFloorOnce(golden, `${name}-${i}`);
      display.push(one.display_ms);
      wm.push(one.window_manager_ms);
    },
    stats: () => ({ until_display: stats(display), until_window_manager: stats(wm) }),
  };
}

/** Wait until a server's pool of `template` (its store at `db`) holds a ready, unexpired machine. */
export async function poolReady(db, template, ms) {
  const until = Date.now() + ms;
  const store = new Store({ path: db });
  try {
    while (Date.now() < until) {
      const rows = await store.listLeases({ principal: POOL_PRINCIPAL, status: ['ready'] });
      if (rows.some((r) => r.template === template && r.expires_at > Date.now())) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally { await store.close(); }
  throw new Error(`the ${template} pool did not refill in ${ms} ms`);
}
