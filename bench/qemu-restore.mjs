// QEMU leases resumed from a saved VM state vs a cold boot vs a warm pool, under TCG, as the MCP
// client sees it: vm_lease_create → ready (vm_lease_status) and → the first vm_screenshot, for
// tiny-console (serial marker) and tiny-console-agent (guest agent: restore adds guest-ping and
// guest-set-time). Three servers in one run: saved states off (cold boot), on (the first create
// makes the saved state and is reported on its own; the others resume from it), and on with a
// warm pool of 1 (each sample waits for the pool to refill, so every claim finds a ready machine).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectServer, poolReady, round, runAsScript, spread, toolCaller } from './lib.mjs';

const N = Number(process.env.N ?? 5);
const N_COLD = Number(process.env.N_COLD ?? 3);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function server(dir, name, qemu, pools = {}) {
  const config = join(dir, `${name}.json`);
  const db = join(dir, `${name}.db`);
  writeFileSync(config, JSON.stringify({ instance: `bq${name}`, db, pools, reaper: { autostart: false }, providers: { qemu: { state_dir: join(dir, `qemu-${name}`), ...qemu } } }));
  const client = await connectServer({ VMHUB_CONFIG: config });
  return { name, client, call: toolCaller(client), db, leases: [] };
}

/** One lease: create → ready, then → the first screenshot answered; released after. */
async function sample(s, template) {
  const t = performance.now();
  const created = (await s.call('vm_lease_create', { template })).structuredContent;
  s.leases.push(created.lease_id);
  let status = created.status;
  let view = created;
  while (['provisioning', 'starting'].includes(status)) {
    view = (await s.call('vm_lease_status', { lease_id: created.lease_id, wait_seconds: 20 })).structuredContent;
    status = view.status;
  }
  if (status !== 'ready') throw new Error(`lease ${created.lease_id} ${status}: ${JSON.stringify(view)}`);
  const ready = performance.now() - t;
  await s.call('vm_screenshot', { lease_id: created.lease_id });
  const first = performance.now() - t;
  const guest = (view.stages ?? []).find((x) => x.name === 'guest')?.detail ?? '';
  await s.call('vm_lease_release', { lease_id: s.leases.pop() });
  return { ready, first, warm: created.status === 'ready', guest };
}

async function measure(s, template, n, { warm = false } = {}) {
  const ready = [];
  const first = [];
  let claimed = 0;
  let guest = '';
  for (let i = 0; i < n; i++) {
    if (warm) await poolReady(s.db, template, 240_000);
    else await sleep(500); // let the released machine's teardown finish off the clock
    const r = await sample(s, template);
    ready.push(r.ready);
    first.push(r.first);
    if (r.warm) claimed++;
    guest = r.guest;
  }
  return { create_to_ready: spread(ready), create_to_first_screenshot: spread(first), ready_when_create_answered: `${claimed}/${n}`, guest_stage: guest };
}

/**
 * The pool servers' machines outlive them (pool leases are not the client's to release, and the
 * reaper is off): stop every qemu a state directory still records, only when /proc shows that pid
 * carrying the recorded `-name`.
 */
function killLeftovers(stateDir) {
  if (!existsSync(stateDir)) return;
  for (const name of readdirSync(stateDir)) {
    let rec;
    try { rec = JSON.parse(readFileSync(join(stateDir, name, 'identity.json'), 'utf8')); } catch { continue; }
    let argv = [];
    try { argv = readFileSync(`/proc/${rec.pid}/cmdline`, 'utf8').split('\0'); } catch { continue; }
    if (argv[argv.indexOf('-name') + 1] === rec.identity) { try { process.kill(rec.pid, 'SIGKILL'); } catch { /* gone meanwhile */ } }
  }
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-restore-'));
  const servers = [];
  try {
    const cold = await server(dir, 'cold', { saved_state: false });
    servers.push(cold);
    const saved = await server(dir, 'saved', {});
    servers.push(saved);
    const out = {};
    for (const template of ['tiny-console', 'tiny-console-agent']) {
      const row = {};
      row.cold_boot = await measure(cold, template, N_COLD);
      const made = await sample(saved, template);
      row.first_create_makes_saved_state = { create_to_ready_ms: round(made.ready), create_to_first_screenshot_ms: round(made.first) };
      row.restore = await measure(saved, template, N);
      const pool = await server(dir, `pool${template === 'tiny-console' ? 'c' : 'a'}`, {}, { [template]: { min_ready: 1, max: 1 } });
      servers.push(pool);
      row.warm_pool = await measure(pool, template, N_COLD, { warm: true });
      row.restore_over_cold = round(row.restore.create_to_ready.median_ms / row.cold_boot.create_to_ready.median_ms, 3);
      out[template] = row;
    }
    return { ...out, accel: 'tcg (no /dev/kvm on this machine)' };
  } finally {
    for (const s of servers) {
      for (const lease of s.leases) await s.client.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } }).catch(() => undefined);
      await s.client.close().catch(() => undefined);
      killLeftovers(join(dir, `qemu-${s.name}`));
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

await runAsScript(import.meta.url, run);
