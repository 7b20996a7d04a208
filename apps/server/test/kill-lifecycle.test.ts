// Servers die with their clients (issue 11): SIGKILL the built server at each stage of a lease's
// life — right after create, while provisioning, once ready, right after renew, in the middle of
// release — 30 lifecycles on the real Docker engine and QEMU (TCG), with no reaper started by the
// test (the servers start their own). Afterwards, within a bound: no container or VM left, and no
// lease in a non-terminal state without a live owner.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, it } from 'node:test';
import { Store } from '@vmhub/store';
import { connect, machineBox, waitReady, type Session } from './harness.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const box = machineBox('killlife', 'kl');
const { instance, db } = box;
const INTERVAL_S = 2;
/** A release whose server died is taken over once its 60 s claim lapsed this long ago. */
const STUCK_GRACE_S = 5;
box.write({ leases: { max_per_owner: 100 }, reaper: { interval_seconds: INTERVAL_S, autostart: true, stuck_grace_seconds: STUCK_GRACE_S }, providers: { qemu: { state_dir: join(box.dir, 'qemu') } } });

type Stage = 'created' | 'provisioning' | 'ready' | 'renewed' | 'releasing';
const STAGES: Stage[] = ['created', 'provisioning', 'ready', 'renewed', 'releasing'];

async function containers(): Promise<string[]> {
  const { stdout } = await run('docker', ['ps', '-aq', '--filter', `name=vmhub-${instance}-`]);
  return stdout.split('\n').filter(Boolean);
}
async function vms(): Promise<number> {
  const { stdout } = await run('pgrep', ['-f', '--', `vmhub-${instance}-`]).catch(() => ({ stdout: '' }));
  // The reaper's own command line names the store, not the identity prefix: only qemu processes match.
  return stdout.split('\n').filter(Boolean).length;
}

/** One lifecycle: a fresh server, one lease taken to `stage`, then the server is SIGKILLed. */
async function lifecycle(template: string, stage: Stage): Promise<string> {
  const s: Session = await connect(box, { VMHUB_LOG_LEVEL: 'error' });
  const kill = () => process.kill(s.pid!, 'SIGKILL');
  const created = await s.call('vm_lease_create', { template });
  if (created.isError) { kill(); throw new Error(`create ${template}: ${JSON.stringify(created.structuredContent)}`); }
  const lease = created.structuredContent.lease_id as string;
  if (stage === 'created') { kill(); return lease; }
  if (stage === 'provisioning') { await sleep(template === 'debian-x11' ? 150 : 1500); kill(); return lease; }
  await waitReady(s, lease, 240);
  if (stage === 'ready') { kill(); return lease; }
  if (stage === 'renewed') { await s.call('vm_lease_renew', { lease_id: lease, ttl_seconds: 600 }); kill(); return lease; }
  // releasing: the release is sent, and the server dies while it tears down.
  void s.client.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } }).catch(() => undefined);
  await sleep(60);
  kill();
  return lease;
}

after(async () => {
  await run('pkill', ['-f', `--while-needed --db ${db}`]).catch(() => undefined);
  await box.end();
});

it('30 lifecycles with the server SIGKILLed at every stage leave no machine and no orphaned lease', { timeout: 600_000 }, async (t) => {
  const leases: { id: string; template: string; stage: Stage }[] = [];
  // 26 on Docker (each stage at least 5 times), 4 on QEMU (killed while booting and once ready).
  for (let i = 0; i < 26; i++) {
    const stage = STAGES[i % STAGES.length]!;
    leases.push({ id: await lifecycle('debian-x11', stage), template: 'debian-x11', stage });
  }
  for (const stage of ['provisioning', 'ready', 'provisioning', 'releasing'] as Stage[]) {
    leases.push({ id: await lifecycle('tiny-console', stage), template: 'tiny-console', stage });
  }
  assert.equal(leases.length, 30);
  const killedAt = Date.now();
  // Leases the agents forgot: their TTL passes (written to the store as time would).
  const store = new Store({ path: db });
  try {
    for (const l of leases) await store.updateLease(l.id, { expires_at: Date.now() - 1 }).catch(() => undefined);
    // The bound: the longest claim a dead server leaves (a release's, 60 s; a provisioner's is
    // 20 s) + the stuck grace + two reaper intervals + teardown time.
    const bound = 60_000 + STUCK_GRACE_S * 1000 + 2 * INTERVAL_S * 1000 + 30_000;
    let left = { containers: -1, vms: -1, live: -1 };
    const until = Date.now() + bound;
    for (;;) {
      const live = (await store.listLeases({ status: ['provisioning', 'starting', 'ready', 'releasing', 'expired'] })).filter((l) => leases.some((x) => x.id === l.id));
      left = { containers: (await containers()).length, vms: await vms(), live: live.length };
      if ((left.containers === 0 && left.vms === 0 && left.live === 0) || Date.now() > until) break;
      await sleep(500);
    }
    const took = Date.now() - killedAt;
    const finals: Record<string, number> = {};
    for (const l of leases) {
      const row = await store.getLease(l.id);
      const key = `${l.stage}→${row?.status}`;
      finals[key] = (finals[key] ?? 0) + 1;
    }
    t.diagnostic(`30 lifecycles killed at ${STAGES.join('/')}: all machines gone and leases final ${took} ms after the last kill; outcomes ${JSON.stringify(finals)}`);
    assert.deepEqual(left, { containers: 0, vms: 0, live: 0 }, `left after ${took} ms: ${JSON.stringify(left)}`);
    assert.ok(took <= bound, `within the bound (${took} ms ≤ ${bound} ms)`);
  } finally {
    await store.close();
  }
});
