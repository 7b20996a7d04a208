/**
 * Rights discovery: availability reads /access/permissions and names what the token lacks, per
 * PVE version (VM.Monitor on 8.4, VM.GuestAgent.* on 9.1). The least-privilege role documented in
 * docs/setup-proxmox.md is enough for create and destroy.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { lease, providerFor, startSim, template } from './helpers/setup.ts';

const BASE = ['VM.Clone', 'VM.Allocate', 'VM.Audit', 'VM.Config.Options', 'VM.Config.Cloudinit', 'VM.Config.CPU', 'VM.Config.Memory', 'VM.PowerMgmt'];
export const LEAST = {
  '9': [...BASE, 'VM.GuestAgent.Audit'],
  '8': [...BASE, 'VM.Monitor'],
};

for (const mode of ['9', '8'] as const) {
  describe(`proxmox: privileges (PVE ${mode})`, () => {
    const sims: PveSimulator[] = [];
    after(async () => { for (const s of sims) await s.close(); });

    const simWith = async (vmPrivs: string[], sdn = true): Promise<PveSimulator> => {
      const sim = await startSim({ mode, tokens: [{ tokenId: 'ci@pve!vmhub', secret: randomUUID(), acl: [
        { path: '/vms', privs: vmPrivs },
        { path: '/storage', roles: ['PVEDatastoreUser'] },
        ...(sdn ? [{ path: '/sdn/zones', roles: ['PVESDNUser'] }] : []),
      ] }] });
      sims.push(sim);
      return sim;
    };

    it('the documented least-privilege role can create, boot (agent channel) and destroy', async () => {
      const sim = await simWith(mode === '9' ? [...LEAST[mode], 'VM.GuestAgent.Unrestricted'] : LEAST[mode]);
      const p = providerFor(sim, 'priv');
      const tpl = template({}, { channel: 'agent' });
      assert.deepEqual(await p.availability(tpl), { availability: 'available' });
      const m = await p.create({ ...lease('priv'), template: tpl, signal: AbortSignal.timeout(20_000) });
      await p.ready(m, { signal: AbortSignal.timeout(20_000), stage: () => undefined, template: tpl });
      assert.equal(await p.destroy(m), 'destroyed');
      await p.close?.();
      assert.deepEqual(sim.violations, []);
    });

    it('a pool-scoped ACL (the documented setup) is enough: clones join the pool', async () => {
      const sim = await startSim({ mode, pools: [{ poolid: 'vmhub' }],
        vms: [{ vmid: 9000, name: 'debian-golden', template: true, pool: 'vmhub' }, { vmid: 9100, name: 'outside', template: true }],
        tokens: [{ tokenId: 'ci@pve!vmhub', secret: randomUUID(), acl: [
          { path: '/pool/vmhub', privs: LEAST[mode] },
          { path: '/storage/local-lvm', roles: ['PVEDatastoreUser'] },
          { path: '/sdn/zones/localnetwork/vmbr0', roles: ['PVESDNUser'] },
        ] }] });
      sims.push(sim);
      const p = providerFor(sim, 'pool', { request_timeout_ms: 1000 });
      const tpl = template({}, { pool: 'vmhub' });
      assert.deepEqual(await p.availability(tpl), { availability: 'available' });
      const outside = await p.availability(template({ golden: 'outside' }, { pool: 'vmhub' }));
      assert.equal(outside.availability, 'unavailable');
      const m = await p.create({ ...lease('pool'), template: tpl, signal: AbortSignal.timeout(20_000) });
      assert.equal(sim.state.vm(Number(m.external_id))?.pool, 'vmhub');
      // Nothing listens on port 9: every stage up to the channel must pass with pool-granted rights.
      const stages = new Map<string, string>();
      await assert.rejects(p.ready(m, { signal: AbortSignal.timeout(20_000), stage: (n, st) => stages.set(n, st), template: { ...tpl, ready_timeout_seconds: 2, provider_options: { pool: 'vmhub', address_override: '127.0.0.1:9' } } }),
        (e: unknown) => VmhubError.is(e) && e.code === 'BOOT_TIMEOUT');
      assert.deepEqual([...stages], [['clone', 'done'], ['start', 'done'], ['agent', 'done'], ['address', 'done'], ['channel', 'failed']]);
      assert.equal(await p.destroy(m), 'destroyed');
      assert.equal(sim.state.vm(Number(m.external_id)), undefined);
      assert.equal(await p.destroy(m), 'already_gone', 'a 403 for a VM that left the pool with its deletion is "gone"');
      // Lost clone answers under pool-only rights (the new VM reads 403 until it joins the pool).
      for (const phase of ['after', 'before'] as const) {
        sim.faults.inject({ kind: 'drop', phase, match: { method: 'POST', path: /\/clone$/ }, count: 1 });
        const before = sim.state.vms().length;
        const m2 = await p.create({ ...lease('pool'), template: tpl, signal: AbortSignal.timeout(20_000) });
        assert.equal(sim.state.vms().length, before + 1, `exactly one clone (drop ${phase})`);
        assert.equal(await p.destroy(m2), 'destroyed');
      }
      await p.close?.();
      assert.deepEqual(sim.violations, []);
    });

    it('without VM.Clone the template is unavailable, naming the privilege and path; create is POLICY_DENIED', async () => {
      const sim = await simWith(LEAST[mode].filter((p) => p !== 'VM.Clone'));
      const p = providerFor(sim, 'priv');
      const av = await p.availability(template());
      assert.equal(av.availability, 'unavailable');
      assert.match(av.reason ?? '', /VM\.Clone on \/vms\/9000/);
      await assert.rejects(p.create({ ...lease('priv'), template: template(), signal: AbortSignal.timeout(20_000) }),
        (e: unknown) => VmhubError.is(e) && e.code === 'POLICY_DENIED' && /VM\.Clone/.test(e.message));
      await p.close?.();
    });

    it('without SDN.Use on the template\'s bridge the template is unavailable', async () => {
      const sim = await simWith(LEAST[mode], false);
      const p = providerFor(sim, 'priv');
      const av = await p.availability(template());
      assert.match(av.reason ?? '', /SDN\.Use on \/sdn\/zones\/localnetwork\/vmbr0/);
      await assert.rejects(p.create({ ...lease('priv'), template: template(), signal: AbortSignal.timeout(20_000) }),
        (e: unknown) => VmhubError.is(e) && e.code === 'POLICY_DENIED' && /SDN\.Use/.test(e.message));
      await p.close?.();
    });

    it(`the guest-agent privilege of PVE ${mode} is the one asked for`, async () => {
      const wrong = mode === '9' ? [...BASE, 'VM.Config.Network'] : [...BASE];
      const sim = await simWith(wrong);
      const p = providerFor(sim, 'priv');
      const av = await p.availability(template());
      assert.equal(av.availability, 'unavailable');
      assert.match(av.reason ?? '', mode === '9' ? /VM\.GuestAgent\.Audit or VM\.GuestAgent\.Unrestricted/ : /VM\.Monitor/);
      const agentTpl = template({}, { channel: 'agent' });
      const sim2 = await simWith(LEAST[mode]);
      const p2 = providerFor(sim2, 'priv');
      const av2 = await p2.availability(agentTpl);
      if (mode === '9') assert.match(av2.reason ?? '', /VM\.GuestAgent\.Unrestricted/);
      else assert.deepEqual(av2, { availability: 'available' });
      await p.close?.();
      await p2.close?.();
    });
  });
}
