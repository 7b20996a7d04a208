// A warm pool on Proxmox, through the built server against the PVE API simulator: the pool's
// machines are linked clones of the golden made ahead of time (their disks are the template's base
// volume's children), tagged with their identity and running; vm_lease_create hands one over
// ready, its exec goes to the guest over SSH, release destroys that VM, and the pool makes another.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { POOL_PRINCIPAL, Store } from '@vmhub/store';
import type { Session } from './harness.ts';
import { startPveServer, type PveServer } from './pve-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-pve-pool-'));
const instance = `pp${randomBytes(3).toString('hex')}`;
const db = join(dir, 'vmhub.db');
let sim: PveSimulator;
let s: Session;
let pve: PveServer | undefined;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function readyPool(min: number, ms = 60_000): Promise<string[]> {
  const until = Date.now() + ms;
  for (;;) {
    const store = new Store({ path: db });
    const ids = await store.listLeases({ principal: POOL_PRINCIPAL, status: ['ready'] }).then((rows) => rows.map((r) => r.id)).finally(() => store.close());
    if (ids.length >= min) return ids;
    if (Date.now() > until) throw new Error(`the pool did not reach ${min} ready machines in ${ms} ms (has ${ids.length})`);
    await sleep(200);
  }
}

before(async () => {
  pve = await startPveServer(dir, instance, { reaper: { autostart: false }, pools: { 'pve-debian': { min_ready: 2, max: 2 } } });
  ({ sim, s } = pve);
});
after(async () => {
  await pve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('proxmox pool: linked clones made ahead, handed over ready, destroyed on release, refilled', { timeout: 120_000 }, async () => {
  const pooled = await readyPool(2);
  const vmOf = (lease: string) => sim.state.vms().find((v) => v.tags.includes(`vmhub-${instance}-${lease}`));
  for (const id of pooled) {
    const vm = vmOf(id);
    assert.ok(vm, `pool machine ${id} is a VM tagged with its identity`);
    assert.equal(vm.status, 'running');
    const disk = String(vm.config.scsi0 ?? vm.config.virtio0 ?? vm.config.sata0 ?? '');
    assert.match(disk, new RegExp(`base-\\d+-disk-\\d+/vm-${vm.vmid}-disk-\\d+`), `a linked clone: its disk is a child of the template's base volume (${disk})`);
  }
  const t0 = Date.now();
  const created = (await s.call('vm_lease_create', { template: 'pve-debian' })).structuredContent;
  const ms = Date.now() - t0;
  assert.equal(created.status, 'ready');
  assert.ok(pooled.includes(created.lease_id), 'the lease is one of the pool\'s machines');
  const ex = await s.call('vm_exec', { lease_id: created.lease_id, command: ['sh', '-c', 'echo $((6*7))'] });
  assert.equal(ex.structuredContent.stdout, '42\n', JSON.stringify(ex.structuredContent));
  const vmid = vmOf(created.lease_id)!.vmid;
  assert.equal((await s.call('vm_lease_release', { lease_id: created.lease_id })).structuredContent.status, 'released');
  assert.ok(!sim.state.vms().some((v) => v.vmid === vmid), 'the released VM is destroyed');
  const refilled = await readyPool(2);
  assert.ok(!refilled.includes(created.lease_id));
  assert.deepEqual(sim.violations, [], 'no request broke the PVE schema');
  process.stderr.write(`[pools-proxmox test] vm_lease_create from the pool answered ready in ${ms} ms\n`);
});
