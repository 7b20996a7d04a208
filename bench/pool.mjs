// Warm pools: vm_lease_create → ready (and → the first screenshot, the first action) as the MCP
// client sees it, from a warm pool vs a cold create, on Docker (debian-x11) and QEMU under TCG
// (tiny-console), beside the floor of a cold Docker create (`docker run` until the X display and
// the window manager answer). Each warm sample waits for the pool to refill first, so every claim finds a ready
// machine; the cold samples run on a server without pools.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectServer, floorSampler, poolReady, round, runAsScript, spread, toolCaller } from './lib.mjs';

const run = promisify(execFile);
const N = Number(process.env.N ?? 7);
const N_QEMU = Number(process.env.N_QEMU ?? 3);
export async function server(dir, name, pools) {
  const config = join(dir, `${name}.json`);
  writeFileSync(config, JSON.stringify({ instance: `bp${name}`, db: join(dir, `${name}.db`), pools, reaper: { autostart: false }, providers: { qemu: { state_dir: join(dir, `qemu-${name}`) } } }));
  const client = await connectServer({ VMHUB_CONFIG: config });
  return { client, call: toolCaller(client), db: join(dir, `${name}.db`) };
}

/** One lease: create → ready, then → the first screenshot answered. */
async function sample(call, template, leases) {
  const t = performance.now();
  const created = (await call('vm_lease_create', { template })).structuredContent;
  leases.push(created.lease_id);
  let status = created.status;
  while (['provisioning', 'starting'].includes(status)) status = (await call('vm_lease_status', { lease_id: created.lease_id, wait_seconds: 20 })).structuredContent.status;
  if (status !== 'ready') throw new Error(`lease ${created.lease_id} ${status}`);
  const ready = performance.now() - t;
  await call('vm_screenshot', { lease_id: created.lease_id });
  return { ready, first: performance.now() - t, warm: created.status === 'ready' };
}

/** `beside(i)`: run before sample i (even i) or after it (odd i): a floor paired with the samples. */
export async function measure({ call, db }, template, n, warm, leases, beside = async () => {}) {
  const ready = [];
  const first = [];
  let claimed = 0;
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) await beside(i);
    if (warm) await poolReady(db, template, 240_000);
    const s = await sample(call, template, leases);
    ready.push(s.ready);
    first.push(s.first);
    if (s.warm) claimed++;
    await call('vm_lease_release', { lease_id: leases.pop() });
    if (i % 2 === 1) await beside(i);
  }
  return { create_to_ready: spread(ready), create_to_first_screenshot: spread(first), ready_when_create_answered: `${claimed}/${n}` };
}

export async function run_() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-pool-'));
  const servers = [];
  const leases = [];
  try {
    // The cold samples first, with no pool server alive: its pool machines (a QEMU one under TCG)
    // would take the CPU from them.
    const cold = await server(dir, 'cold', {});
    servers.push(cold);
    // The floor of a cold Docker create: the engine alone, `docker run` of the same golden until its
    // display and then its window manager answer (lib.mjs), one run paired with each cold create.
    const golden = (await run('docker', ['images', '--format', '{{.Repository}}:{{.Tag}}', 'vmhub/debian-x11'])).stdout.split('\n').filter(Boolean)[0];
    const floor = floorSampler(golden, 'poolfloor');
    const docker = { cold: await measure(cold, 'debian-x11', N, false, leases, floor.sample) };
    docker.floor_docker_run = floor.stats();
    docker.cold_over_floor = round(docker.cold.create_to_ready.median_ms / docker.floor_docker_run.until_window_manager.median_ms, 2);
    const qemu = { cold: await measure(cold, 'tiny-console', N_QEMU, false, leases) };
    const warm = await server(dir, 'warm', { 'debian-x11': { min_ready: 1, max: 1 }, 'tiny-console': { min_ready: 1, max: 1 } });
    servers.push(warm);
    docker.warm_pool = await measure(warm, 'debian-x11', N, true, leases);
    qemu.warm_pool = await measure(warm, 'tiny-console', N_QEMU, true, leases);
    return { docker_debian_x11: docker, qemu_tcg_tiny_console: qemu };
  } finally {
    for (const s of servers) {
      for (const lease of leases) await s.client.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } }).catch(() => undefined);
      await s.client.close().catch(() => undefined);
    }
    // The warm server's pool machines expire with it; remove them now rather than leave them to a reaper.
    await run('sh', ['-c', 'docker rm -f $(docker ps -aq --filter name=vmhub-bpwarm-) 2>/dev/null || true']);
    // The pattern's [v] keeps pkill from matching this sh's own command line.
    await run('sh', ['-c', 'pkill -f -- "[v]mhub-bpwarm-" || true']);
    rmSync(dir, { recursive: true, force: true });
  }
}

export { run_ as run };
await runAsScript(import.meta.url, run_);
