// vm_click with 4 leases at once against one lease alone (issue 19: "4 concurrent leases keep
// click p50 within 1.5× of one lease"). Four debian-x11 leases on one server, one MCP client per
// lease (as four agents would be); first one lease clicks alone, then all four click at the same
// time, N clicks each. The floor is the same click with no other lease alive.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectServer, leaseReady, percentile, round, toolCaller } from './lib.mjs';

const N = Number(process.env.N ?? 60);
const LEASES = 4;

async function clicks(call, lease, n) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call('vm_click', { lease_id: lease, x: 600 + (i % 10), y: 400, coordinate_space: 'screen' });
    times.push(performance.now() - t);
  }
  return times;
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-concurrent-'));
  const config = join(dir, 'config.json');
  // One server over HTTP would be the multi-agent shape; four stdio servers on one store are the
  // same per-lease path with no shared event loop to flatter it, so this is the harder case.
  writeFileSync(config, JSON.stringify({ instance: 'conc', db: join(dir, 'vmhub.db') }));
  const clients = [];
  const leases = [];
  try {
    for (let i = 0; i < LEASES; i++) clients.push(await connectServer({ VMHUB_CONFIG: config }));
    const calls = clients.map(toolCaller);
    for (let i = 0; i < LEASES; i++) leases.push(await leaseReady(calls[i], 'debian-x11', () => {}));
    for (let i = 0; i < LEASES; i++) await clicks(calls[i], leases[i], 5); // warm: channel, helper
    const alone = await clicks(calls[0], leases[0], N);
    const together = await Promise.all(leases.map((l, i) => clicks(calls[i], l, N)));
    const p50s = together.map((t) => round(percentile(t, 50)));
    const aloneP50 = round(percentile(alone, 50));
    return {
      one_lease_alone: { p50_ms: aloneP50, p95_ms: round(percentile(alone, 95)), n: alone.length },
      four_leases_at_once: { p50_ms_per_lease: p50s, p95_ms_per_lease: together.map((t) => round(percentile(t, 95))), n_each: N },
      worst_p50_over_alone: round(Math.max(...p50s) / aloneP50, 2),
    };
  } finally {
    for (let i = 0; i < leases.length; i++) await clients[i].callTool({ name: 'vm_lease_release', arguments: { lease_id: leases[i] } }).catch(() => undefined);
    for (const c of clients) await c.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 2));
