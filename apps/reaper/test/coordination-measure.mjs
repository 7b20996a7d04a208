#!/usr/bin/env node
/**
 * Measures the reaper's two coordination modes under faults (issue 18: "row claims or
 * advisory-lock leadership; measure which holds better under faults"). Per run: a real
 * PostgreSQL, N expired leases whose machines live in the file-backed fake provider (each destroy
 * takes DELAY ms), 3 looping reapers each in its own network namespace ("host"); once one of them
 * has destroyed a machine and still holds claims (in leader mode: the leader), a fault hits it:
 *   kill       SIGKILL (its PostgreSQL session ends at once)
 *   partition  its host's link goes down (the process lives on, cut off from PostgreSQL)
 *   none       nothing (the baseline)
 * Reports: time from start and from the fault until every lease is reaped, destroy calls per
 * machine, effective destroys per machine (must be 1) and machines destroyed more than once.
 *
 *   node apps/reaper/test/coordination-measure.mjs [--leases 60] [--runs 2] [--delay 1000]
 *        [--claim-seconds 5] [--modes claims,leader] [--faults none,kill,partition]
 * Needs root (network namespaces) and the built bin (pnpm --filter @vmhub/reaper run build).
 */
import { parseArgs } from 'node:util';
import { createNetwork, startPostgres } from '@vmhub/postgres-testing';
import { BIN, machineFiles, seedLease } from './helpers.ts';
import { calls, postgresWorld, sleep } from './postgres-world.ts';

const { values } = parseArgs({ options: {
  leases: { type: 'string', default: '60' }, runs: { type: 'string', default: '2' }, delay: { type: 'string', default: '1000' },
  'claim-seconds': { type: 'string', default: '5' }, modes: { type: 'string', default: 'claims,leader' }, faults: { type: 'string', default: 'none,kill,partition' },
} });
const N = Number(values.leases);
const CLAIM = Number(values['claim-seconds']);

const net = createNetwork(3);
const pg = await startPostgres({ listen: [...net.gateways], allow: [net.cidr] });
const results = [];
let db = 0;
try {
  for (const fault of values.faults.split(',')) {
    for (const mode of values.modes.split(',')) {
      for (let run = 1; run <= Number(values.runs); run++) {
        const r = await measure(mode, fault, `coord_${++db}`);
        results.push(r);
        console.log(JSON.stringify(r));
      }
    }
  }
} finally {
  pg.destroy();
  net.destroy();
}
console.log('\nmode    fault      runs  reaped_s(mean,max)  after_fault_s(mean,max)  destroy_calls/machine  effective/machine  double_effective');
for (const fault of values.faults.split(',')) {
  for (const mode of values.modes.split(',')) {
    const rs = results.filter((r) => r.mode === mode && r.fault === fault);
    const stat = (k) => `${(rs.reduce((a, r) => a + r[k], 0) / rs.length).toFixed(1)},${Math.max(...rs.map((r) => r[k])).toFixed(1)}`;
    console.log(`${mode.padEnd(7)} ${fault.padEnd(10)} ${String(rs.length).padEnd(5)} ${stat('reaped_s').padEnd(19)} ${stat('after_fault_s').padEnd(24)} ${(rs.reduce((a, r) => a + r.destroy_calls, 0) / rs.length / N).toFixed(3).padEnd(22)} ${(rs.reduce((a, r) => a + r.effective, 0) / rs.length / N).toFixed(3).padEnd(18)} ${rs.reduce((a, r) => a + r.double_effective, 0)}`);
  }
}

async function measure(mode, fault, name) {
  const url = await pg.createDatabase(name);
  const w = await postgresWorld(url, { destroyDelayMs: Number(values.delay), intervalSeconds: 1 });
  const children = [];
  try {
    const leases = [];
    for (let i = 0; i < N; i++) leases.push(await seedLease(w, { status: 'ready', expiresIn: -1000 }));
    const t0 = Date.now();
    for (const h of net.hosts) {
      h.setLink(true);
      const env = { ...w.env, VMHUB_DB: `${pg.url(name, h.gateway)}?retry_ms=2000&connect_timeout_ms=2000&statement_timeout_ms=3000` };
      const child = h.spawn([process.execPath, BIN, '--interval', '1', '--claim-seconds', String(CLAIM), '--concurrency', '4', '--coordination', mode], { env, stdio: ['ignore', 'ignore', 'ignore'] });
      children.push({ child, host: h });
    }
    // The victim: the first reaper whose destroy removed a machine (in leader mode only the leader destroys).
    let victim;
    while (!victim) {
      if (Date.now() - t0 > 120_000) throw new Error('no destroy within 120 s');
      const first = calls(w).find((c) => c.kind === 'destroy' && c.outcome === 'destroyed');
      victim = first && children.find((c) => c.child.pid === first.pid);
      if (!victim) await sleep(50);
    }
    const held = (await Promise.all(leases.map((l) => w.store.getLease(l.id)))).filter((l) => l.status === 'expired' && l.claimed_by?.includes(`:${victim.child.pid}:`)).length;
    const tFault = Date.now();
    if (fault === 'kill') victim.child.kill('SIGKILL');
    else if (fault === 'partition') victim.host.setLink(false);
    while ((await w.store.countLeases({ status: ['reaped'] })) < N) {
      if (Date.now() - t0 > 300_000) throw new Error(`${mode}/${fault}: not every lease reaped within 300 s`);
      await sleep(100);
    }
    const tDone = Date.now();
    // A partitioned reaper may still be finishing destroys it started: let them land before counting.
    await sleep(Number(values.delay) * 2 + 500);
    const log = calls(w).filter((c) => c.kind === 'destroy');
    const perMachine = new Map();
    for (const c of log) perMachine.set(c.ext, [...(perMachine.get(c.ext) ?? []), c.outcome]);
    const effective = log.filter((c) => c.outcome === 'destroyed').length;
    return {
      mode, fault, leases: N, victim_held_claims: held,
      reaped_s: (tDone - t0) / 1000, after_fault_s: (tDone - tFault) / 1000,
      destroy_calls: log.length, effective,
      double_effective: [...perMachine.values()].filter((o) => o.filter((x) => x === 'destroyed').length > 1).length,
      machines_left: machineFiles(w).length,
    };
  } finally {
    for (const { child, host } of children) { host.setLink(true); if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); }
    await sleep(200);
    await w.cleanup();
  }
}
