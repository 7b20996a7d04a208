// The reaper against Proxmox (the schema-validated PVE simulator), configured by the seed's env
// names, with 20 % of API requests failing during its passes: expired leases' VMs and orphans are
// destroyed by their identity tag, live leases' VMs and another instance's VM are never touched.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, it } from 'node:test';
import { machineIdentity, type MachineRef, type TemplateConfig } from '@vmhub/core';
import proxmoxProvider from '@vmhub/provider-proxmox';
import { startPveSimulator, type PveSimulator } from '@vmhub/pve-simulator';
import type { LeaseStatus } from '@vmhub/store';
import { makeWorld, runOnce, type World } from './helpers.ts';

let sim: PveSimulator;
let w: World;
const template: TemplateConfig = { id: 'pve', provider: 'proxmox', adapter: 'x11', os: 'linux', golden: 'debian-golden' };

before(async () => {
  sim = await startPveSimulator({ timing: { cloneMs: 30, fullCloneMs: 60, startMs: 20, stopMs: 20, shutdownMs: 20, destroyMs: 30, configMs: 10, templateMs: 10 }, nodes: [{ name: 'pve1', memoryTotal: 512 * 1024 ** 3 }] });
  w = makeWorld({ orphanGraceSeconds: 0 });
});
after(async () => { await sim?.close(); await w?.cleanup(); });

function providerFor(instance: string) {
  return proxmoxProvider.create({ base_url: sim.hostPort, token_id: sim.token.tokenId, token: sim.token.secret, fingerprint: sim.certificate!.fingerprint256, task_poll_ms: 30, retry_base_ms: 20 }, { identityPrefix: `vmhub-${instance}-`, log: () => {} });
}

async function vmFor(instance: string): Promise<{ lease: string; machine: MachineRef }> {
  const lease = randomUUID();
  const machine = await providerFor(instance).create({ lease_id: lease, identity: machineIdentity(instance, lease), template, signal: AbortSignal.timeout(30_000) });
  return { lease, machine };
}

async function record(lease: string, machine: MachineRef, status: LeaseStatus, expiresAt: number) {
  const now = Date.now();
  await w.store.createLease({ id: lease, principal: 'tester', request_id: `req-${lease}`, template: 'pve', provider: 'proxmox', adapter: 'x11', owner: 't', status, identity: machine.identity, created_at: now - 60_000, expires_at: expiresAt, max_expires_at: now + 3_600_000, deadline_at: null });
  await w.store.putMachine({ lease_id: lease, identity: machine.identity, provider: 'proxmox', external_id: machine.external_id, node: machine.node ?? null, state: 'running', details: '{}' });
}

it('reaper + proxmox: expired and orphaned VMs destroyed by tag under 20 % faults; live and foreign VMs kept', { timeout: 240_000 }, async () => {
  const live: string[] = [];
  const doomed: string[] = [];
  for (let i = 0; i < 10; i++) {
    const { lease, machine } = await vmFor(w.instance);
    if (i < 3) { await record(lease, machine, 'ready', Date.now() + 3_600_000); live.push(machine.identity); }
    else if (i < 6) { await record(lease, machine, 'ready', Date.now() - 1000); doomed.push(machine.identity); }
    else if (i < 8) { await record(lease, machine, 'released', Date.now() + 3_600_000); doomed.push(machine.identity); }
    else doomed.push(machine.identity); // no lease row at all: an orphan
  }
  const foreign = await vmFor('otherinst');
  const tagged = () => sim.state.vms().flatMap((v) => v.tags).filter((t) => t.startsWith('vmhub-'));

  sim.faults.inject({ kind: '500', probability: 0.1 });
  sim.faults.inject({ kind: '596', probability: 0.05 });
  sim.faults.inject({ kind: 'drop', probability: 0.05 });
  const env = { PVE_HOST: sim.hostPort, PVE_TOKEN_ID: sim.token.tokenId, PVE_TOKEN: sim.token.secret, PVE_FINGERPRINT: sim.certificate!.fingerprint256, VMHUB_REAPER_CLAIM_SECONDS: '1' };
  const codes: (number | null)[] = [];
  for (let pass = 0; pass < 8; pass++) {
    const r = await runOnce(w, [], env, 120_000);
    codes.push(r.code);
    if (r.code === 0 && doomed.every((id) => !tagged().includes(id))) break;
    await new Promise((res) => setTimeout(res, 1200)); // let claims of failed teardowns lapse
  }
  sim.faults.clear();

  const left = tagged();
  for (const id of doomed) assert.ok(!left.includes(id), `${id} destroyed (exit codes ${codes.join(',')})`);
  for (const id of live) assert.ok(left.includes(id), `${id} of a live lease kept`);
  assert.ok(left.includes(foreign.machine.identity), 'another instance\'s VM is never touched');
  assert.deepEqual(sim.violations, [], 'every response matched the official PVE schema');
});
