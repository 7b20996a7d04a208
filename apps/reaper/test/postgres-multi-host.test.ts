/**
 * Two reapers on two "hosts" (network namespaces) sharing one PostgreSQL and one machine
 * backend; one is SIGKILLed while it holds claims and a destroy is under way. Checks that every
 * expired lease is torn down exactly once: reaped once (one `lease.reaped` event), its machine
 * gone, exactly one destroy that actually removed it (any repeat answers already_gone), and that
 * the survivor took the killed reaper's leases only after their claims lapsed.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createNetwork, startPostgres, type Network, type PostgresServer } from '@vmhub/postgres-testing';
import { until } from '@vmhub/test-kit';
import { BIN, exited, machineFiles, seedLease, type World } from './helpers.ts';
import { calls, postgresWorld, sleep } from './postgres-world.ts';

const LEASES = 60;
const CLAIM_SECONDS = 5;

describe('reaper: two hosts over PostgreSQL, one reaper SIGKILLed mid-teardown', () => {
  let net: Network;
  let pg: PostgresServer;
  let w: World;
  const children: ChildProcess[] = [];
  before(async () => {
    net = createNetwork(2);
    pg = await startPostgres({ listen: [...net.gateways], allow: [net.cidr] });
    w = await postgresWorld(await pg.createDatabase('reaper_multi_host'), { destroyDelayMs: 1500, intervalSeconds: 1 });
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await w?.cleanup();
    pg?.destroy();
    net?.destroy();
  });

  const spawnOn = (host: number) => {
    const h = net.hosts[host]!;
    // The database as this host reaches it: over its link to the gateway, not loopback.
    const env = { ...w.env, VMHUB_DB: pg.url('reaper_multi_host', h.gateway) };
    const child = h.spawn([process.execPath, BIN, '--interval', '1', '--claim-seconds', String(CLAIM_SECONDS), '--concurrency', '4', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => { err += d; });
    child.stdout!.resume();
    children.push(child);
    return Object.assign(child, { err: () => err });
  };

  it('every expired lease is reaped once and its machine destroyed once; the survivor waits for the lapse', async (t) => {
    const leases = [];
    for (let i = 0; i < LEASES; i++) leases.push(await seedLease(w, { status: 'ready', expiresIn: -1000 }));
    const byExt = new Map(leases.map((l) => [`m-${l.id}`, l.id]));

    const victim = spawnOn(0);
    const survivor = spawnOn(1);
    const victimId = (row: { claimed_by: string | null }) => row.claimed_by?.includes(`:${victim.pid}:`) === true;

    // Mid-teardown: the victim's first destroys removed machines (not yet recorded: a batch is
    // recorded at its end) and its next ones have begun.
    await until(() => calls(w).some((c) => c.kind === 'destroy' && c.outcome === 'destroyed' && c.pid === victim.pid), 'a destroy by the victim', 60_000);
    victim.kill('SIGKILL');
    await exited(victim, 30_000);
    assert.equal(victim.signalCode, 'SIGKILL');
    const victimDestroyed = calls(w).filter((c) => c.kind === 'destroy' && c.outcome === 'destroyed' && c.pid === victim.pid).map((c) => c.ext);
    // A heartbeat sent just before the kill lands by now; after that the victim's claims never move.
    await sleep(1000);
    const held = (await Promise.all(leases.map((l) => w.store.getLease(l.id)))).filter((l) => l && l.status === 'expired' && victimId(l));
    assert.ok(held.length > 0, 'the victim died holding claims on unfinished leases');
    const lapse = new Map(held.map((l) => [l!.id, l!.claim_expires_at!]));

    // Watch the survivor take each of them: claimMany stamps updated_at with the claim's time.
    const takenAt = new Map<string, number>();
    const watch = setInterval(async () => {
      for (const id of lapse.keys()) {
        if (takenAt.has(id)) continue;
        const l = await w.store.getLease(id).catch(() => undefined);
        if (l && l.claimed_by && !victimId(l) && l.status === 'expired') takenAt.set(id, l.updated_at);
      }
    }, 100);
    try {
      await until(async () => (await w.store.countLeases({ status: ['reaped'] })) === LEASES, 'every lease reaped', 120_000, 250);
    } finally {
      clearInterval(watch);
    }
    assert.equal(survivor.exitCode, null, `the survivor is still running: ${survivor.err().slice(-2000)}`);

    // Reaped exactly once: one lease.reaped event per lease, all by the survivor for the victim's.
    const reaped = await w.store.listEvents({ kind: 'lease.reaped', limit: 10_000 });
    const perLease = new Map<string, number>();
    for (const e of reaped) perLease.set(e.lease_id!, (perLease.get(e.lease_id!) ?? 0) + 1);
    for (const l of leases) assert.equal(perLease.get(l.id), 1, `lease ${l.id}: one lease.reaped event`);
    for (const id of lapse.keys()) assert.ok(!reaped.find((e) => e.lease_id === id)!.actor.includes(`:${victim.pid}:`), `lease ${id} finished by the survivor`);

    // Machines: all gone, each removed by exactly one destroy; repeats answered already_gone.
    assert.deepEqual(machineFiles(w), [], 'no machine left');
    const log = calls(w);
    for (const ext of byExt.keys()) {
      const outcomes = log.filter((c) => c.kind === 'destroy' && c.ext === ext).map((c) => c.outcome);
      assert.equal(outcomes.filter((o) => o === 'destroyed').length, 1, `${ext}: one effective destroy (${outcomes.join(',')})`);
      assert.ok(outcomes.every((o) => o === 'destroyed' || o === 'already_gone'), `${ext}: ${outcomes.join(',')}`);
    }
    assert.ok(log.some((c) => c.kind === 'destroy' && c.pid === survivor.pid), 'the survivor destroyed machines too');
    // What the victim destroyed but never recorded, the survivor found gone: no second destroy.
    for (const ext of victimDestroyed) {
      if (!lapse.has(byExt.get(ext)!)) continue;
      assert.ok(log.some((c) => c.ext === ext && c.outcome === 'already_gone' && c.pid === survivor.pid), `${ext}: the survivor's repeat answered already_gone`);
    }

    // Takeover only after the lapse, for every lease the victim held.
    for (const [id, until] of lapse) {
      const at = takenAt.get(id);
      assert.ok(at !== undefined, `saw the survivor claim ${id}`);
      assert.ok(at >= until, `lease ${id}: taken over at ${at}, its claim lapsed at ${until}`);
    }
    const effective = log.filter((c) => c.kind === 'destroy' && c.outcome === 'destroyed');
    t.diagnostic(`victim held ${lapse.size} claims at its death; effective destroys: victim ${effective.filter((c) => c.pid === victim.pid).length}, survivor ${effective.filter((c) => c.pid === survivor.pid).length}; repeats answered already_gone: ${log.filter((c) => c.outcome === 'already_gone').length}`);
    survivor.kill('SIGTERM');
    assert.equal(await exited(survivor, 60_000), 0, survivor.err().slice(-2000));
  });
});
