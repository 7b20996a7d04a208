/**
 * docker: snapshot, restore and fork against the real engine (issue 31), checked by effect in
 * the guests: a file written before the snapshot comes back on restore and one written after is
 * gone; the desktop is up again (X display answers in the guest, the framebuffer file is back);
 * a process running before the snapshot is NOT there after restore (memory: false is claimed);
 * three forks each see the snapshot's file and not each other's, with their own hostname,
 * machine-id, SSH host key, authorized key and RNG output, kept when a fork is restored to the
 * parent's snapshot; destroyed forks are gone from the
 * engine; deleteSnapshot refuses a decoy image of another identity, and a snapshot still used
 * by a container loses its tag at once and its image with the last container.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { MachineRef, SnapshotResult } from '@vmhub/core';
import { VmhubError } from '@vmhub/core';
import { rawExec } from '../src/docker-exec.ts';
import { snapshotTag } from '../src/docker-snapshot-image.ts';
import { containerExists, docker, ensureGolden, makeProvider, removeContainers, template } from './fixture.ts';

const signal = () => AbortSignal.timeout(60_000);

async function sh(machine: MachineRef, script: string, user = 'user'): Promise<{ code: number | null; out: string }> {
  const r = await rawExec(docker, machine.external_id, { argv: ['sh', '-c', script], user, env: { DISPLAY: ':0' }, timeoutMs: 20_000, maxOutputBytes: 65536 });
  return { code: r.exit_code, out: r.stdout.toString('utf8').trim() };
}

async function imageExists(ref: string): Promise<boolean> {
  return (await docker.raw('GET', `/images/${encodeURIComponent(ref)}/json`)).status === 200;
}

describe('docker: snapshot, restore, fork', { timeout: 600_000 }, () => {
  const { provider, context } = makeProvider();
  const lease = randomUUID();
  const identity = `${context.identityPrefix}${lease}`;
  const snapIdentity = `${context.identityPrefix}snap-${randomUUID()}`;
  const decoyIdentity = `vmhub-decoy${randomUUID().slice(0, 6)}-snap-${randomUUID()}`;
  const forks: MachineRef[] = [];
  const containers: string[] = [identity];
  const images: string[] = [];
  let machine: MachineRef;
  let snap: SnapshotResult;
  let before_: { machineId: string; hostKey: string; authorized: string };

  before(async () => {
    await ensureGolden();
    machine = await provider.create({ lease_id: lease, identity, template, signal: signal() });
    await provider.ready(machine, { template, signal: signal(), stage: () => {} });
  });
  after(async () => {
    await removeContainers(...containers, ...forks.map((f) => f.identity));
    for (const i of [...images, snapshotTag(snapIdentity), snapshotTag(decoyIdentity)]) await docker.raw('DELETE', `/images/${encodeURIComponent(i)}`, { query: { force: true } });
    await provider.close?.();
  });

  it('says memory: false (no CRIU checkpoint here)', () => {
    assert.deepEqual(provider.snapshotSupport!(template), { memory: false });
  });

  it('snapshot commits the filesystem into an image carrying the snapshot identity, without the lease\'s secrets', async () => {
    assert.equal((await sh(machine, 'echo first > ~/first.txt && (sleep 424242 >/dev/null 2>&1 &) && pgrep -f "sleep 42424[2]"')).code, 0);
    before_ = {
      machineId: (await sh(machine, 'cat /etc/machine-id 2>/dev/null || true')).out,
      hostKey: (await sh(machine, 'cat /etc/ssh/ssh_host_ed25519_key.pub')).out,
      authorized: (await sh(machine, 'cat ~/.ssh/authorized_keys')).out,
    };
    assert.match(before_.authorized, /^ssh-ed25519 /);
    const t0 = performance.now();
    snap = await provider.snapshot!(machine, { identity: snapIdentity, template, signal: signal() });
    const ms = performance.now() - t0;
    assert.equal(snap.identity, snapIdentity);
    assert.equal(snap.memory, false);
    assert.ok(snap.size_bytes > 0 && snap.size_bytes < 200e6, `layer size ${snap.size_bytes}`);
    const img = await docker.json<any>('GET', `/images/${snap.external_id}/json`);
    assert.deepEqual(img.RepoTags, [snapshotTag(snapIdentity)]);
    assert.equal(img.Config.Labels['vmhub.identity'], snapIdentity);
    assert.equal(img.Config.Labels['vmhub.template'], template.id);
    assert.equal(img.Config.Labels['vmhub.snapshot.source'], identity);
    assert.ok(img.Config.Env.includes('VMHUB_SSH_AUTHORIZED_KEY='), 'the lease\'s public key is blanked in the image config');
    assert.ok(!img.Config.Env.some((e: string) => e.includes('ssh-ed25519')));
    // The source keeps running (paused only for the commit).
    assert.equal((await sh(machine, 'cat ~/first.txt')).out, 'first');
    process.stderr.write(`[snapshot] commit ${ms.toFixed(0)} ms, layer ${snap.size_bytes} bytes\n`);
  });

  it('restore puts the filesystem back, restarts the desktop, keeps the lease\'s machine files', async () => {
    assert.equal((await sh(machine, 'echo second > ~/second.txt')).code, 0);
    const old = machine.external_id;
    const t0 = performance.now();
    const restored = await provider.restore!(machine, snap, { template, signal: signal() });
    const ms = performance.now() - t0;
    assert.ok(restored && restored.external_id !== old, 'a new container');
    assert.equal(await containerExists(old), false);
    machine = restored;
    assert.equal(machine.identity, identity);
    const info = await docker.json<any>('GET', `/containers/${machine.external_id}/json`);
    assert.equal(info.Name, `/${identity}`);
    assert.equal(info.Config.Labels['vmhub.identity'], identity);
    assert.equal(info.Config.Labels['vmhub.lease'], lease);
    assert.equal(info.HostConfig.NetworkMode, 'none');
    assert.equal((await sh(machine, 'cat ~/first.txt')).out, 'first');
    assert.equal((await sh(machine, 'test -e ~/second.txt')).code, 1, 'the file written after the snapshot is gone');
    // The desktop again, by effect: the display answers in the guest, the window manager runs, the framebuffer file is back.
    assert.equal((await sh(machine, 'xdpyinfo -display :0 >/dev/null && wmctrl -m')).code, 0);
    const fb = await provider.framebuffer!(machine, { template });
    assert.ok(fb && existsSync(fb.path) && fb.x11_socket, 'framebuffer and X socket shared again');
    // memory: false — the process that ran at the snapshot does not come back.
    assert.equal((await sh(machine, 'pgrep -f "sleep 42424[2]"')).code, 1);
    assert.equal((await sh(machine, 'hostname')).out, 'vmhub');
    assert.equal((await sh(machine, 'cat /etc/ssh/ssh_host_ed25519_key.pub')).out, before_.hostKey, 'the host key clients pinned');
    assert.equal((await sh(machine, 'cat ~/.ssh/authorized_keys')).out, before_.authorized);
    // Its own machine-id (a lease made from the golden has none: nor has it after restoring its own snapshot).
    assert.equal((await sh(machine, 'cat /etc/machine-id 2>/dev/null || true')).out, before_.machineId);
    process.stderr.write(`[snapshot] restore → ready ${ms.toFixed(0)} ms\n`);
  });

  it('fork ×3: each sees the snapshot\'s file, diverges alone, and has its own identity and randomness', async () => {
    for (let i = 0; i < 3; i++) {
      const forkLease = randomUUID();
      const fork = await provider.create({ lease_id: forkLease, identity: `${context.identityPrefix}${forkLease}`, template, signal: signal(), from_snapshot: snap });
      forks.push(fork);
      await provider.ready(fork, { template, signal: signal(), stage: () => {} });
    }
    const facts = [];
    for (const f of forks) {
      assert.equal((await sh(f, 'cat ~/first.txt')).out, 'first');
      assert.equal((await sh(f, 'test -e ~/second.txt')).code, 1);
      assert.equal((await sh(f, 'xdpyinfo -display :0 >/dev/null')).code, 0);
      const info = await docker.json<any>('GET', `/containers/${f.external_id}/json`);
      assert.equal(info.Config.Labels['vmhub.identity'], f.identity);
      facts.push({
        hostname: (await sh(f, 'hostname')).out,
        machineId: (await sh(f, 'cat /etc/machine-id')).out,
        hostKey: (await sh(f, 'cat /etc/ssh/ssh_host_ed25519_key.pub')).out,
        authorized: (await sh(f, 'cat ~/.ssh/authorized_keys')).out,
        rng: (await sh(f, 'od -An -tx1 -N16 /dev/urandom | tr -d " \\n"')).out,
      });
    }
    assert.equal((await sh(forks[0]!, 'echo only-0 > ~/fork0.txt')).code, 0);
    for (const m of [forks[1]!, forks[2]!, machine]) assert.equal((await sh(m, 'test -e ~/fork0.txt')).code, 1);
    const parent = { hostname: 'vmhub', machineId: (await sh(machine, 'cat /etc/machine-id 2>/dev/null || true')).out, hostKey: before_.hostKey, authorized: before_.authorized };
    for (const key of ['hostname', 'machineId', 'hostKey', 'authorized'] as const) {
      const all: string[] = [...facts.map((f) => f[key]), parent[key]];
      assert.equal(new Set(all).size, 4, `${key} differs between the forks and the parent: ${all.join(' | ')}`);
    }
    for (const f of facts) assert.match(f.machineId, /^[0-9a-f]{32}$/);
    assert.equal(new Set(facts.map((f) => f.rng)).size, 3);
    // Restoring a fork to the parent's snapshot: it keeps its own machine files, not the parent's.
    assert.equal((await sh(forks[1]!, 'echo later > ~/later.txt')).code, 0);
    forks[1] = (await provider.restore!(forks[1]!, snap, { template, signal: signal() }))!;
    assert.equal((await sh(forks[1], 'test -e ~/later.txt')).code, 1);
    assert.equal((await sh(forks[1], 'cat ~/first.txt')).out, 'first');
    assert.equal((await sh(forks[1], 'hostname')).out, facts[1]!.hostname);
    assert.equal((await sh(forks[1], 'cat /etc/machine-id')).out, facts[1]!.machineId);
    assert.equal((await sh(forks[1], 'cat /etc/ssh/ssh_host_ed25519_key.pub')).out, facts[1]!.hostKey);
    assert.equal((await sh(forks[1], 'cat ~/.ssh/authorized_keys')).out, facts[1]!.authorized);
  });

  it('destroyed forks are gone from the engine; the snapshot outlives them', async () => {
    for (const f of forks) {
      assert.equal(await provider.destroy(f), 'destroyed');
      assert.equal(await containerExists(f.external_id), false);
    }
    assert.ok(await imageExists(snap.external_id));
  });

  it('a fork onto another template is refused before anything is made', async () => {
    const forkLease = randomUUID();
    const other = { ...template, id: 'other-template' };
    await assert.rejects(provider.create({ lease_id: forkLease, identity: `${context.identityPrefix}${forkLease}`, template: other, signal: signal(), from_snapshot: snap }), (e: VmhubError) => e.code === 'INVALID_REQUEST');
    assert.equal(await containerExists(`${context.identityPrefix}${forkLease}`), false);
    await assert.rejects(provider.restore!(machine, { identity: `${context.identityPrefix}snap-${randomUUID()}`, external_id: `sha256:${'0'.repeat(64)}` }, { template, signal: signal() }), (e: VmhubError) => e.code === 'NOT_FOUND');
    assert.ok(await containerExists(machine.external_id), 'the lease keeps its machine');
  });

  it('listSnapshots has it; deleteSnapshot refuses a decoy of another identity', async () => {
    const listed = await provider.listSnapshots!();
    assert.deepEqual(listed.map((s) => s.identity), [snapIdentity]);
    assert.equal(listed[0]!.external_id, snap.external_id);
    // The decoy: the same look (a commit in the same repository), another identity.
    const res = await docker.raw('POST', '/commit', { query: { container: machine.external_id, repo: 'vmhub/snapshot', tag: decoyIdentity, pause: true }, body: { Labels: { 'vmhub.identity': decoyIdentity } } });
    assert.equal(res.status, 201);
    const decoy = JSON.parse(res.body.toString()).Id as string;
    assert.equal(await provider.deleteSnapshot!({ identity: snapIdentity, external_id: decoy }), 'identity_mismatch');
    assert.ok(await imageExists(decoy));
    assert.ok(!(await provider.listSnapshots!()).some((s) => s.identity === decoyIdentity), 'another instance\'s snapshot is not listed');
    // A child image keeps its parent's: out of the way for the last test.
    assert.equal((await docker.raw('DELETE', `/images/${decoy}`, { query: { force: true } })).status, 200);
  });

  it('deleting a snapshot the restored lease still runs: untagged now, removed with the last container', async () => {
    assert.equal(await provider.deleteSnapshot!(snap), 'destroyed');
    assert.equal(await imageExists(snapshotTag(snapIdentity)), false);
    assert.ok(await imageExists(snap.external_id), 'kept while the lease\'s container uses it');
    assert.deepEqual(await provider.listSnapshots!(), []);
    assert.equal(await provider.deleteSnapshot!(snap), 'already_gone');
    await assert.rejects(provider.restore!(machine, snap, { template, signal: signal() }), (e: VmhubError) => e.code === 'NOT_FOUND');
    assert.equal(await provider.destroy(machine), 'destroyed');
    assert.equal(await imageExists(snap.external_id), false, 'gone with its last container');
  });
});
