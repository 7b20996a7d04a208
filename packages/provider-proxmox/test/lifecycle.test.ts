/**
 * Full lifecycle against the simulator in PVE 9.1 and 8.4 modes, with the guest's SSH address
 * pointing at a real sshd on loopback that trusts the key cloud-init would install (read from the
 * config the guest saw at start): create → ready (every stage) → exec / files / archive over SSH
 * → list → destroy (tag verified, purge, VM gone) → destroy again is already_gone. Channels are
 * never pooled: each channel() call is its own SSH connection, and once the callers closed theirs
 * the provider holds none (counted on this process's sockets).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { VmhubError, type MachineRef, type Provider } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { startSshd, type TestSshd } from '@vmhub/test-kit';
import { settle } from './helpers/connections.ts';
import { lease, providerFor, stageRecorder, startSim, template } from './helpers/setup.ts';

for (const mode of ['9', '8'] as const) {
  describe(`proxmox: lifecycle (PVE ${mode === '9' ? '9.1' : '8.4'} mode, real sshd)`, () => {
    let sim: PveSimulator;
    let sshd: TestSshd;
    let provider: Provider;
    let machine: MachineRef;
    let vmid: number;
    const { lease_id, identity } = lease('life');
    const work = mkdtempSync(join(tmpdir(), 'vmhub-life-'));

    const stateDir = mkdtempSync(join(tmpdir(), 'vmhub-life-state-'));

    before(async () => {
      [sim, sshd] = await Promise.all([startSim({ mode }), startSshd()]);
      provider = providerFor(sim, 'life', { state_dir: stateDir });
    });
    after(async () => {
      await provider?.close?.();
      await sim?.close();
      await sshd?.stop();
      rmSync(work, { recursive: true, force: true });
      rmSync(stateDir, { recursive: true, force: true });
    });

    const tpl = (): ReturnType<typeof template> => template({}, { address_override: `${sshd.host}:${sshd.port}`, ciuser: sshd.user });

    it('status lists the nodes; the template is available', async () => {
      const st = await provider.status();
      assert.equal(st.ok, true);
      assert.deepEqual(st.nodes?.map((n) => [n.id, n.status]), [['pve1', 'online']]);
      assert.deepEqual(await provider.availability(tpl()), { availability: 'available' });
    });

    it('create clones, tags and injects a per-lease key', async () => {
      machine = await provider.create({ lease_id, identity, template: tpl(), signal: AbortSignal.timeout(30_000) });
      vmid = Number(machine.external_id);
      const vm = sim.state.vm(vmid);
      assert.ok(vm, 'VM exists in the simulator');
      assert.deepEqual(vm.tags, [identity.toLowerCase()]);
      assert.equal(vm.config.ciuser, sshd.user);
      assert.match(String(vm.config.description), new RegExp(identity));
      assert.match(decodeURIComponent(String(vm.config.sshkeys)), /^ssh-ed25519 \S+ vmhub-/);
      assert.equal(vm.lock, undefined);
      assert.equal(JSON.stringify(machine).includes('PRIVATE'), false, 'no secret in the MachineRef');
    });

    it('connect reaches another TCP port at the VM address (adbd, Windows-MCP, VNC); a closed one is a retryable CAPABILITY_UNAVAILABLE', async () => {
      const echo = createServer((c) => c.pipe(c));
      await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
      const port = (echo.address() as AddressInfo).port;
      try {
        const stream = await provider.connect!(machine, port, { template: tpl() });
        const back = await new Promise<string>((resolve) => { stream.once('data', (d: Buffer) => resolve(d.toString())); stream.write('ping through connect'); });
        assert.equal(back, 'ping through connect');
        stream.destroy();
      } finally {
        echo.close();
      }
      await assert.rejects(provider.connect!(machine, port, { template: tpl() }), (err: unknown) =>
        VmhubError.is(err) && err.code === 'CAPABILITY_UNAVAILABLE' && err.retryable && err.message.includes(`port ${port}`));
    });

    it('ready walks clone → start → agent → address → channel', async () => {
      const rec = stageRecorder();
      // The guest's sshd trusts what cloud-init saw at boot: authorize it once the VM started.
      const sync = setInterval(() => {
        const seen = sim.state.vm(vmid)?.cloudInitAtStart?.sshkeys;
        if (seen) {
          sshd.authorize(decodeURIComponent(String(seen)));
          clearInterval(sync);
        }
      }, 20);
      try {
        await provider.ready(machine, { signal: AbortSignal.timeout(30_000), stage: rec.stage, template: tpl() });
      } finally {
        clearInterval(sync);
      }
      assert.deepEqual([...rec.stages.keys()], ['clone', 'start', 'agent', 'address', 'channel']);
      assert.ok([...rec.stages.values()].every((s) => s.status === 'done'), JSON.stringify([...rec.stages]));
      assert.equal(sim.state.vm(vmid)?.status, 'running');
      assert.equal(await settle(sshd.port, 0), 0, 'ready closed the SSH channel it probed with');
    });

    it('two channel() calls give independent channels: closing one leaves the other working', async () => {
      const a = await provider.channel!(machine, tpl());
      const b = await provider.channel!(machine, tpl());
      try {
        assert.notEqual(a, b, 'each call opens a new channel');
        assert.equal(await settle(sshd.port, 2), 2, 'each channel has its own SSH connection');
        await a.close();
        assert.equal(await settle(sshd.port, 1), 1, 'closing one channel closes only its connection');
        await assert.rejects(a.exec(['true']), (e: unknown) => VmhubError.is(e) && e.code === 'LEASE_NOT_READY');
        assert.equal((await b.exec(['echo', 'still open'])).stdout.toString(), 'still open\n');
      } finally {
        await a.close();
        await b.close();
      }
      assert.equal(await settle(sshd.port, 0), 0);
    });

    it('exec, files and archives run over SSH', async () => {
      const ch = await provider.channel!(machine, tpl());
      try {
        const argv = ["it's", '$(id -u)', '`uname`', 'a;b&&c|d', '"', '\\n', '*', ''];
        const r = await ch.exec(['printf', '%s\\0', ...argv]);
        assert.deepEqual(r.stdout.toString().split('\0').slice(0, -1), argv);
        const data = randomBytes(1024 * 1024);
        await ch.putFile(join(work, 'up/one.bin'), data);
        const back = await ch.getFile(join(work, 'up/one.bin'));
        assert.equal(createHash('sha256').update(back).digest('hex'), createHash('sha256').update(data).digest('hex'));
        const src = mkdtempSync(join(tmpdir(), 'vmhub-tar-'));
        writeFileSync(join(src, 'f.txt'), 'tar content');
        await ch.putArchive!(join(work, 'arch'), Readable.from([execFileSync('tar', ['-c', '-C', src, '.'])]));
        rmSync(src, { recursive: true, force: true });
        assert.equal((await ch.getFile(join(work, 'arch/f.txt'))).toString(), 'tar content');
      } finally {
        await ch.close(); // what core does at the end of the lease session
      }
    });

    it('after a restart (same state_dir) the lease key is still there: SSH works from a new provider', async () => {
      const keyDir = join(stateDir, 'provider-proxmox', 'keys');
      assert.equal(readdirSync(keyDir).length, 1);
      assert.equal(statSync(join(keyDir, readdirSync(keyDir)[0])).mode & 0o777, 0o600);
      await provider.close?.();
      provider = providerFor(sim, 'life', { state_dir: stateDir });
      const ch = await provider.channel!(machine, tpl());
      try {
        assert.equal((await ch.exec(['echo', 'still here'])).stdout.toString(), 'still here\n');
      } finally {
        await ch.close();
      }
    });

    it('the guest host key pinned by the lease\'s first channel binds every later one (and survives the restart)', async () => {
      // Another sshd (another host key) that trusts the lease key: an impostor at the guest's address.
      const impostor = await startSshd();
      try {
        impostor.authorize(decodeURIComponent(String(sim.state.vm(vmid)?.cloudInitAtStart?.sshkeys)));
        const there = template({}, { address_override: `${impostor.host}:${impostor.port}`, ciuser: impostor.user });
        await assert.rejects(provider.channel!(machine, there), (e: unknown) => VmhubError.is(e) && /SSH to .* failed/.test(e.message));
        assert.equal(await settle(impostor.port, 0), 0, 'the refused channel left no connection behind');
        const ch = await provider.channel!(machine, tpl());
        await ch.close();
      } finally {
        await impostor.stop();
      }
    });

    it('list finds the machine by its tag prefix', async () => {
      const owned = await provider.list();
      assert.deepEqual(owned.map((m) => [m.identity, m.external_id]), [[identity, String(vmid)]]);
    });

    it('destroy verifies the tag, stops, purges and confirms the VM is gone', async () => {
      assert.equal(await settle(sshd.port, 0), 0, 'the provider holds no channel once its callers closed theirs');
      assert.equal(await provider.destroy(machine), 'destroyed');
      assert.equal(await settle(sshd.port, 0), 0, 'destroy leaves no channel of the provider open');
      assert.equal(sim.state.vm(vmid), undefined);
      const rec = sim.state.destroyed.find((d) => d.vmid === vmid);
      assert.ok(rec);
      assert.deepEqual([rec.tags, rec.purge, rec.destroyUnreferencedDisks], [[identity.toLowerCase()], true, true]);
      assert.equal(await provider.destroy(machine), 'already_gone');
      assert.deepEqual(await provider.list(), []);
      assert.deepEqual(readdirSync(join(stateDir, 'provider-proxmox', 'keys')), [], 'the lease key file is removed at teardown');
    });

    it('every response was valid against the schema', () => {
      assert.deepEqual(sim.violations, []);
      const seen = sim.state.endpointsExercised();
      process.stderr.write(`[provider-proxmox] PVE ${mode} lifecycle exercised ${seen.length} endpoints: ${seen.join(', ')}\n`);
    });
  });
}
