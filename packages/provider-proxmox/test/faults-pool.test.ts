/**
 * Faults with the documented pool-scoped least-privilege token (PVE 9): the same scenario as
 * faults.test.ts, where a VM outside the pool (a clone still running, a deleted VM) answers 403.
 */
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Provider } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { runFaultScenario } from './helpers/fault-scenario.ts';
import { providerFor, startSim, template } from './helpers/setup.ts';

describe('proxmox: faults with a pool-scoped token (20 % of requests fail, 50 leases)', () => {
  let sim: PveSimulator;
  let provider: Provider;

  before(async () => {
    sim = await startSim({
      seed: Number(process.env.FAULT_SEED ?? 3), guest: { agentDelayMs: 100 }, nodes: [{ name: 'pve1', memoryTotal: 512 * 1024 ** 3 }],
      pools: [{ poolid: 'vmhub' }], vms: [{ vmid: 9000, name: 'debian-golden', template: true, pool: 'vmhub' }],
      tokens: [{ tokenId: 'vmhub@pve!provider', secret: randomUUID(), acl: [
        { path: '/pool/vmhub', privs: ['VM.Clone', 'VM.Allocate', 'VM.Audit', 'VM.Config.Options', 'VM.Config.Cloudinit', 'VM.PowerMgmt', 'VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'] },
        { path: '/storage/local-lvm', roles: ['PVEDatastoreUser'] },
        { path: '/sdn/zones/localnetwork/vmbr0', roles: ['PVESDNUser'] },
      ] }],
    });
    provider = providerFor(sim, 'fpl', { request_timeout_ms: 1000, retries: 4, retry_base_ms: 25, lock_retries: 5, task_poll_ms: 50, ready_poll_ms: 100 });
  });
  after(async () => {
    await provider?.close?.();
    await sim?.close();
  });

  it('every lease ends ready or with a typed error, and nothing tagged remains after teardown', async () => {
    await runFaultScenario(sim, provider, template({ ready_timeout_seconds: 60 }, { channel: 'agent', pool: 'vmhub' }), 'fpl', 'pool-scoped token');
  });
});
