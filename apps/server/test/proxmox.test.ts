// A full agent session on Proxmox, through the built server and the SDK client: the server talks
// to the PVE API simulator (every request and response validated against the official schema)
// configured the way the vmhub seed documents (PVE_HOST, PVE_TOKEN_ID, PVE_TOKEN), and the
// guest's SSH address is a real sshd on loopback that trusts the per-lease key cloud-init got. A
// restart goes through PVE's status/reboot and the session reopens over SSH.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { waitReady, type Session } from './harness.ts';
import { startPveServer, type PveServer } from './pve-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-pve-it-'));
const instance = `pv${randomBytes(3).toString('hex')}`;
let sim: PveSimulator;
let s: Session;
let pve: PveServer | undefined;

before(async () => {
  pve = await startPveServer(dir, instance);
  ({ sim, s } = pve);
});
after(async () => {
  await pve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('proxmox: an agent session through the server against the PVE simulator', () => {
  let lease = '';
  let vmid = 0;

  it('the template is available and vm_health lists the node', async () => {
    const t = (await s.call('vm_list_templates')).structuredContent.templates.find((x: any) => x.id === 'pve-debian');
    assert.equal(t.availability, 'available', t.reason);
    const health = (await s.call('vm_health')).structuredContent;
    const pve = health.providers.find((p: any) => p.id === 'proxmox');
    assert.equal(pve.ok, true, pve.reason);
    assert.deepEqual(pve.nodes.map((n: any) => n.status), ['online']);
  });

  it('lease → ready: cloned, tagged with the identity, every readiness stage done', async () => {
    lease = (await s.call('vm_lease_create', { template: 'pve-debian' })).structuredContent.lease_id;
    const ready = await waitReady(s, lease, 60);
    assert.equal(ready.status, 'ready', JSON.stringify(ready));
    for (const stage of ['clone', 'start', 'agent', 'address', 'channel']) assert.ok(ready.stages.some((x: any) => x.name === stage && x.status === 'done'), `stage ${stage}: ${JSON.stringify(ready.stages)}`);
    const vm = sim.state.vms().find((v) => v.tags.includes(`vmhub-${instance}-${lease}`));
    assert.ok(vm, 'a VM carries the identity tag');
    vmid = vm.vmid;
    assert.equal(vm.status, 'running');
  });

  it('exec and files go over SSH to the guest', async () => {
    const ex = await s.call('vm_exec', { lease_id: lease, command: ['sh', '-c', 'echo $((6*7)); echo oops >&2; exit 4'] });
    assert.deepEqual([ex.structuredContent.exit_code, ex.structuredContent.stdout, ex.structuredContent.stderr], [4, '42\n', 'oops\n']);
    const literal = await s.call('vm_exec', { lease_id: lease, command: ['printf', '%s', `it's $(id) \`x\` ; | &`] });
    assert.equal(literal.structuredContent.stdout, `it's $(id) \`x\` ; | &`, 'argv crosses SSH literally');
    const data = randomBytes(1024 * 1024);
    const path = join(dir, 'guest-file.bin');
    const put = await s.call('vm_put_file', { lease_id: lease, path, content_base64: data.toString('base64') });
    assert.equal(put.isError, undefined, JSON.stringify(put.structuredContent));
    const got = await s.call('vm_get_file', { lease_id: lease, path });
    assert.equal(got.structuredContent.sha256, createHash('sha256').update(data).digest('hex'));
  });

  it('vm_lease_restart: status/reboot {timeout: 60}, the stages again, the same VM and lease; stats from status/current; no console log', async () => {
    const before = (await s.call('vm_lease_status', { lease_id: lease })).structuredContent;
    const from = sim.state.requests.log.length;
    let done = (await s.call('vm_lease_restart', { lease_id: lease })).structuredContent;
    if (done.status === 'starting') done = await waitReady(s, lease, 60);
    assert.equal(done.status, 'ready', JSON.stringify(done));
    assert.equal(done.expires_at, before.expires_at);
    assert.deepEqual(done.stages.map((x: any) => x.name), ['reboot', 'clone', 'start', 'agent', 'address', 'channel']);
    const power = sim.state.requests.log.slice(from).filter((r) => /\/status\/(reboot|reset|start|stop)$/.test(r.path));
    assert.deepEqual(power.map((r) => [r.endpoint, r.status, r.params]), [['POST /nodes/{node}/qemu/{vmid}/status/reboot', 200, { node: sim.state.vm(vmid)!.node, vmid, timeout: 60 }]]);
    assert.equal((await s.call('vm_exec', { lease_id: lease, command: ['true'] })).structuredContent.exit_code, 0, 'the session reopened over SSH');
    const stats = (await s.call('vm_lease_status', { lease_id: lease, stats: true })).structuredContent.stats;
    assert.deepEqual(Object.keys(stats).sort(), ['cpu_percent', 'memory_bytes', 'memory_limit_bytes', 'uptime_seconds']);
    const logs = await s.call('vm_logs', { lease_id: lease });
    assert.equal(logs.structuredContent.code, 'CAPABILITY_UNAVAILABLE');
    assert.match(logs.structuredContent.message, /provider "proxmox" keeps no console log/);
  });

  it('release destroys the VM after verifying its tag; the simulator saw no schema violation', async () => {
    const released = await s.call('vm_lease_release', { lease_id: lease });
    assert.equal(released.structuredContent.status, 'released');
    assert.equal(sim.state.vm(vmid), undefined, 'the VM is gone');
    assert.ok(sim.state.destroyed.some((d: any) => d.vmid === vmid), 'destroyed through the API');
    assert.deepEqual(sim.violations, [], 'every response matched the official schema');
  });
});
