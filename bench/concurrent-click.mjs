// vm_click with 4 leases at once against one lease alone (issue 19: "4 concurrent leases keep
// click p50 within 1.5× of one lease"). Four debian-x11 leases, four MCP stdio servers on one
// store (as four agents with their own MCP config would run), one client each; N clicks per lease.
// Three shapes, each alone (lease 1) and then all four at once, in one run:
//   - tight: every client clicks again the moment its click answers (CPU-bound: 4 chains of
//     client → server → X server on 2 cores);
//   - paced: every client clicks every PACE ms, for each PACE in PACES (50 ms is 20 clicks a second
//     per agent, far faster than an agent that looks at the screen between actions; 10, 5 and 2 ms
//     find where four leases start to slow each other), phases spread over the period;
//   - floor: the same tight loop with no MCP at all — four processes, each sending the click's
//     XTEST requests straight to its lease's X socket (what vmhub's adapter does per click), so
//     the ratio the hardware itself allows for four CPU-bound loops is measured beside vmhub's.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectServer, leaseReady, percentile, round, runAsScript, toolCaller } from './lib.mjs';

const N = Number(process.env.N ?? 200);
const LEASES = 4;
const PACES = (process.env.PACES ?? '50,10,5,2').split(',').map(Number);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const XTEST = fileURLToPath(new URL('../packages/adapter-x11/dist/x11-xtest.js', import.meta.url));

async function clicks(call, lease, n, paceMs = 0, phaseMs = 0) {
  const times = [];
  if (phaseMs) await sleep(phaseMs);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    if (paceMs) await sleep(Math.max(0, start + i * paceMs - performance.now()));
    const t = performance.now();
    await call('vm_click', { lease_id: lease, x: 600 + (i % 10), y: 400, coordinate_space: 'screen' });
    times.push(performance.now() - t);
  }
  return times;
}

// One floor process: open the X socket, click N times in a tight loop (motion, press, release,
// one round trip, as the adapter does), print the times.
const FLOOR_WORKER = `
const { XTestConnection } = await import(process.env.XTEST);
const x = await XTestConnection.open(process.env.SOCKET);
const times = [];
for (let i = 0; i < 5; i++) { x.motion(600, 400); x.button(true, 1); x.button(false, 1); await x.sync(); }
await new Promise((r) => setTimeout(r, Math.max(0, Number(process.env.START_AT) - Date.now())));
for (let i = 0; i < Number(process.env.N); i++) {
  const t = performance.now();
  x.motion(600 + (i % 10), 400); x.button(true, 1); x.button(false, 1); await x.sync();
  times.push(performance.now() - t);
}
x.close();
process.stdout.write(JSON.stringify(times));
`;

function floorRun(sockets) {
  const startAt = Date.now() + 1500; // every process is up and connected by then
  return Promise.all(sockets.map((socket) => new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--input-type=module', '-e', FLOOR_WORKER], { env: { ...process.env, XTEST, SOCKET: socket, N: String(N), START_AT: String(startAt) }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`floor worker exited ${code}`))));
  })));
}

function shape(alone, together) {
  // Two decimals: the floor's clicks take a fifth of a millisecond.
  const aloneP50 = round(percentile(alone, 50), 2);
  const p50s = together.map((t) => round(percentile(t, 50), 2));
  return {
    one_lease_alone: { p50_ms: aloneP50, p95_ms: round(percentile(alone, 95), 2), n: alone.length },
    four_leases_at_once: { p50_ms_per_lease: p50s, p95_ms_per_lease: together.map((t) => round(percentile(t, 95), 2)), n_each: together[0].length },
    worst_p50_over_alone: round(Math.max(...p50s) / aloneP50, 2),
  };
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
    for (let i = 0; i < LEASES; i++) await clicks(calls[i], leases[i], 5); // warm: session, X connection

    const tight = shape(await clicks(calls[0], leases[0], N), await Promise.all(leases.map((l, i) => clicks(calls[i], l, N))));
    const paced = [];
    for (const pace of PACES) {
      paced.push({
        every_ms: pace,
        ...shape(
          await clicks(calls[0], leases[0], N, pace),
          await Promise.all(leases.map((l, i) => clicks(calls[i], l, N, pace, (i * pace) / LEASES))),
        ),
      });
    }
    // The X socket provider-docker shares for each lease (its framebuffer directory's x11/).
    const sockets = leases.map((l) => `/dev/shm/vmhub-fb-${process.getuid()}/vmhub-conc-${l}/x11/X0`);
    const floor = shape((await floorRun(sockets.slice(0, 1)))[0], await floorRun(sockets));
    return { tight_loop: tight, paced, floor_xtest_no_mcp_tight_loop: floor };
  } finally {
    for (let i = 0; i < leases.length; i++) await clients[i].callTool({ name: 'vm_lease_release', arguments: { lease_id: leases[i] } }).catch(() => undefined);
    for (const c of clients) await c.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await runAsScript(import.meta.url, run);
