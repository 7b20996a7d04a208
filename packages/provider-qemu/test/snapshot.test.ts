/**
 * Snapshots on a real qemu (TCG here), tiny-console-agent: memory really comes back, forks diverge
 * with their own RNG, snapshots outlive their machine and are deleted by identity.
 *   - a guest process counts in memory and writes the count to the serial log; snapshot; it runs
 *     on; restore → the first count after the restore follows the snapshot's count (not the count
 *     reached since) and continues from it; a file written after the snapshot is gone, one written
 *     before is there; the lease keeps its identity, record and forwarded host port; the first
 *     agent command after ready() reads the host's clock (ready() left guest-set-time answering);
 *   - a restore onto a machine of another launch shape, or a fork of one, is INVALID_REQUEST and
 *     changes nothing;
 *   - fork ×3: each sees the snapshot's file; a file written in one is absent in the others and in
 *     the parent; their RNG output right after the fork differs (one boot; boot_id is made at its
 *     first read, here after the fork), dmesg
 *     shows the vmgenid reseed; forks share the snapshot's state file (hard links); each destroyed
 *     fork is gone; the parent destroyed, the snapshot stays and still forks;
 *   - deleteSnapshot refuses a decoy (a record carrying another identity) and a ref whose
 *     external_id points at another snapshot; listSnapshots shows only this instance's;
 *   - a qcow2 disk: the snapshot freezes the machine's overlay (hard link, relative backing names,
 *     no copy), the machine runs on a new top; a block written after the snapshot is undone by
 *     restore and absent in a fork made after the parent is gone; a second snapshot of the
 *     restored machine (three layers) forks after the first snapshot was deleted.
 * Boots: one per template (the saved state each lease resumes from); every lease resumes.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { VmhubError, type MachineRef, type Provider, type SnapshotResult, type TemplateConfig } from '@vmhub/core';
import plugin, { buildGolden, tinyConsoleAgentTemplate } from '../src/index.ts';
import { isAlive, procInfo } from '../src/proc.ts';
import { until } from '@vmhub/test-kit';
import { testContext, testPrefix, tinyConsoleSetup } from './helpers.ts';

const COUNTER = 'i=0; while true; do i=$((i+1)); echo "vmhub-count $i" > /dev/ttyS0; sleep 1; done';

describe('qemu: snapshot, restore and fork a running machine', { timeout: 900_000 }, () => {
  const prefix = testPrefix();
  const logs: string[] = [];
  let root: string;
  let stateDir: string;
  let template: TemplateConfig;
  let diskTemplate: TemplateConfig;
  let p: Provider;
  const machines: MachineRef[] = [];

  async function lease(t: TemplateConfig, from_snapshot?: SnapshotResult): Promise<MachineRef> {
    const identity = `${prefix}${randomUUID()}`;
    const m = await p.create({ lease_id: identity.slice(prefix.length), identity, template: t, signal: AbortSignal.timeout(240_000), ...(from_snapshot ? { from_snapshot } : {}) });
    machines.push(m);
    await p.ready(m, { template: t, signal: AbortSignal.timeout(240_000), stage: () => {} });
    return m;
  }
  async function sh(m: MachineRef, script: string, t = template): Promise<string> {
    const ch = await p.channel!(m, t);
    try {
      const r = await ch.exec(['/bin/sh', '-c', script], { timeoutMs: 30_000 });
      assert.equal(r.exit_code, 0, `${script}: ${r.stderr.toString()}`);
      return r.stdout.toString();
    } finally { await ch.close(); }
  }
  const snapIdentity = () => `${prefix}snap-${randomUUID()}`;
  const snap = (m: MachineRef, t = template) => p.snapshot!(m, { identity: snapIdentity(), template: t, signal: AbortSignal.timeout(60_000) });
  const counts = async (m: MachineRef) => [...(await readFile(join(stateDir, m.identity, 'serial.log'), 'latin1')).matchAll(/vmhub-count (\d+)/g)].map((x) => Number(x[1]));
  const recordOf = async (m: MachineRef) => JSON.parse(await readFile(join(stateDir, m.identity, 'identity.json'), 'utf8'));
  const rngRead = 'head -c 16 /dev/urandom | od -An -tx1 | tr -d " \\n"';

  before(async () => {
    const setup = await tinyConsoleSetup();
    root = setup.root;
    await buildGolden('tiny-console-agent', { dir: join(root, 'golden') });
    const agent = tinyConsoleAgentTemplate(join(root, 'golden'));
    // A forwarded guest port: restore must keep the lease's host port.
    template = { ...agent, forward_tcp: true, provider_options: { ...agent.provider_options, forward_ports: [7000] } };
    diskTemplate = { ...agent, id: 'tiny-console-agent-disk', golden: setup.goldenDisk, provider_options: { ...agent.provider_options, kernel: join(root, 'golden', 'tiny-console-agent', 'vmlinuz') } };
    stateDir = join(root, 'state');
    p = plugin.create({ state_dir: stateDir }, testContext(prefix, logs));
  });

  after(async () => {
    for (const m of machines) await p.destroy(m).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  });

  let parent: MachineRef;
  let s: SnapshotResult;

  test('snapshotSupport: memory for the goldens, a reason for per-lease SSH', () => {
    assert.deepEqual(p.snapshotSupport!(template), { memory: true });
    const reason = p.snapshotSupport!({ ...template, provider_options: { ...template.provider_options, ssh: { user: 'user' } } });
    assert.match(String(reason), /per-lease SSH/);
  });

  test('restore: a counting process goes back to the snapshot\'s count and continues from it; a file written after the snapshot is gone; the first agent command sees the host\'s clock', async (t) => {
    parent = await lease(template);
    await sh(parent, `echo before > /root/snapfile; setsid sh -c '${COUNTER}' </dev/null >/dev/null 2>&1 &`);
    await until(async () => (await counts(parent)).length >= 3 || undefined, 'the guest counter', 30_000);
    const low = Math.max(...(await counts(parent)));
    const t0 = performance.now();
    s = await snap(parent);
    const snapMs = performance.now() - t0;
    const high = Math.max(...(await counts(parent)));
    t.diagnostic(`snapshot ${Math.round(snapMs)} ms, ${s.size_bytes} bytes; count ${low}..${high} at the snapshot`);
    assert.equal(s.memory, true);
    assert.equal(s.identity.startsWith(`${prefix}snap-`), true);
    assert.equal(s.external_id, join(stateDir, 'snapshots', s.identity));
    const rec = JSON.parse(await readFile(join(s.external_id, 'snapshot.json'), 'utf8'));
    assert.equal(rec.identity, s.identity);
    assert.equal(rec.source, parent.identity);
    assert.equal(rec.template, template.id);
    assert.match(rec.shape, /^tiny-console-agent-[0-9a-f]{16}$/);
    assert.equal(s.size_bytes, (await stat(join(s.external_id, 'state.bin'))).size, 'no disk: the state file is all it holds');
    assert.equal((await stat(join(s.external_id, 'state.bin'))).mode & 0o777, 0o444);
    assert.equal((await p.state!(parent)), 'running', 'the machine runs on after the snapshot');

    await sh(parent, 'echo after > /root/afterfile');
    await until(async () => Math.max(...(await counts(parent))) >= high + 5 || undefined, 'the counter to run on', 30_000);
    const ranOn = Math.max(...(await counts(parent)));
    const before = await recordOf(parent);

    const t1 = performance.now();
    const back = (await p.restore!(parent, s, { template, signal: AbortSignal.timeout(60_000) })) ?? parent;
    await p.ready(back, { template, signal: AbortSignal.timeout(60_000), stage: () => {} });
    t.diagnostic(`restore → ready ${Math.round(performance.now() - t1)} ms`);
    // ready() leaves guest-set-time answering in the background; the agent's next command waits for it.
    const guestClock = Number((await sh(back, 'date +%s')).trim());
    assert.ok(Math.abs(guestClock - Date.now() / 1000) < 3, `guest clock ${guestClock} vs host ${Math.floor(Date.now() / 1000)} right after ready (the snapshot is ≥ 5 s old)`);
    const after = await recordOf(parent);
    assert.equal(back.identity, parent.identity);
    assert.notEqual(after.pid, before.pid, 'a new qemu');
    assert.equal(after.identity, before.identity);
    assert.equal(after.lease_id, before.lease_id);
    assert.equal(after.created_at, before.created_at);
    assert.deepEqual(after.forwards, before.forwards, 'the same forwarded host port');
    assert.equal(after.snapshot, s.identity);
    await new Promise<void>((resolve, reject) => { const c = connect(after.forwards[7000], '127.0.0.1', () => { c.destroy(); resolve(); }); c.once('error', reject); });
    machines.splice(machines.indexOf(parent), 1, back);
    parent = back;

    await until(async () => (await counts(parent)).length >= 3 || undefined, 'the counter after the restore', 30_000);
    const resumed = await counts(parent);
    t.diagnostic(`counts after the restore: ${resumed.slice(0, 5).join(' ')} (ran on to ${ranOn} before)`);
    assert.ok(resumed[0]! >= low + 1 && resumed[0]! <= high + 1, `the first count after the restore (${resumed[0]}) follows the snapshot's (${low}..${high}), not ${ranOn}`);
    assert.deepEqual(resumed.slice(0, 3), [resumed[0], resumed[0]! + 1, resumed[0]! + 2], 'and continues from it');
    assert.equal((await sh(parent, 'cat /root/snapfile')).trim(), 'before');
    assert.equal((await sh(parent, 'test -e /root/afterfile && echo present || echo absent')).trim(), 'absent');
    assert.match(await sh(parent, 'dmesg'), /crng reseeded due to virtual machine fork/);
  });

  test('restore onto a machine of another launch shape, or a fork of it, is INVALID_REQUEST and changes nothing', async () => {
    const other = { ...template, resources: { ...template.resources, memory_mb: 320 } };
    const pid = (await recordOf(parent)).pid;
    await assert.rejects(p.restore!(parent, s, { template: other, signal: AbortSignal.timeout(10_000) }), (e) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /launch shape/.test(e.message));
    await assert.rejects(p.restore!(parent, s, { template: { ...template, id: 'another' }, signal: AbortSignal.timeout(10_000) }), (e) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    assert.equal((await recordOf(parent)).pid, pid);
    assert.equal(await p.state!(parent), 'running');
    const identity = `${prefix}${randomUUID()}`;
    await assert.rejects(p.create({ lease_id: 'x', identity, template: other, signal: AbortSignal.timeout(10_000), from_snapshot: s }), (e) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    assert.ok(!existsSync(join(stateDir, identity)));
    await assert.rejects(p.restore!(parent, { ...s, identity: `${prefix}snap-gone` , external_id: join(stateDir, 'snapshots', `${prefix}snap-gone`) }, { template, signal: AbortSignal.timeout(10_000) }), (e) => VmhubError.is(e) && e.code === 'NOT_FOUND');
  });

  test('fork ×3: each sees the snapshot\'s file, writes stay their own, RNG output differs, each destroyed fork is gone', async (t) => {
    const t0 = performance.now();
    const forks = await Promise.all([0, 1, 2].map(() => lease(template, s)));
    t.diagnostic(`fork ×3 → all ready ${Math.round(performance.now() - t0)} ms`);
    const rng = await Promise.all(forks.map((f) => sh(f, rngRead)));
    rng.push(await sh(parent, rngRead));
    for (const r of rng) assert.match(r, /^[0-9a-f]{32}$/);
    assert.equal(new Set(rng).size, 4, `RNG output differs between forks and parent: ${rng.join(' ')}`);
    // boot_id is made at its first read (none before the snapshot here), so it differs too; the
    // RNG output is the check that holds whatever the snapshot's guest had read.
    const bootIds = await Promise.all(forks.map((f) => sh(f, 'cat /proc/sys/kernel/random/boot_id')));
    t.diagnostic(`boot_id of the forks: ${bootIds.map((b) => b.trim()).join(' ')}`);
    for (const [i, f] of forks.entries()) {
      assert.equal((await sh(f, 'cat /root/snapfile')).trim(), 'before');
      assert.match(await sh(f, 'dmesg'), /crng reseeded due to virtual machine fork/);
      await sh(f, `echo fork${i} > /root/forkfile${i}`);
      const rec = await recordOf(f);
      assert.equal(rec.snapshot, s.identity);
      assert.equal((await stat(join(stateDir, f.identity, 'snapshot-state.bin'))).ino, (await stat(join(s.external_id, 'state.bin'))).ino, 'the fork links the snapshot\'s state, no copy');
    }
    for (const [i] of forks.entries()) {
      for (const [j, other] of [...forks, parent].entries()) {
        const seen = (await sh(other, `test -e /root/forkfile${i} && echo present || echo absent`)).trim();
        assert.equal(seen, i === j ? 'present' : 'absent', `forkfile${i} in machine ${j}`);
      }
    }
    for (const f of forks) {
      const { pid } = await recordOf(f);
      assert.equal(await p.destroy(f), 'destroyed');
      assert.ok(!isAlive(await procInfo(pid)));
      assert.ok(!existsSync(join(stateDir, f.identity)));
      assert.equal(await p.state!(f), 'gone');
    }
    assert.ok(existsSync(join(s.external_id, 'state.bin')), 'the snapshot outlives its forks');
  });

  test('deleteSnapshot reads the identity back: a decoy and a mismatched ref are left alone; list shows this instance\'s', async () => {
    const root_ = join(stateDir, 'snapshots');
    const decoy = `${prefix}snap-decoy`;
    await mkdir(join(root_, decoy));
    const rec = JSON.parse(await readFile(join(s.external_id, 'snapshot.json'), 'utf8'));
    await writeFile(join(root_, decoy, 'snapshot.json'), JSON.stringify({ ...rec, identity: `vmhub-other-snap-${randomUUID()}` }));
    await writeFile(join(root_, decoy, 'state.bin'), 'x');
    assert.equal(await p.deleteSnapshot!({ identity: decoy, external_id: join(root_, decoy) }), 'identity_mismatch');
    assert.ok(existsSync(join(root_, decoy, 'state.bin')));
    assert.equal(await p.deleteSnapshot!({ identity: `${prefix}snap-x`, external_id: s.external_id }), 'identity_mismatch', 'an external_id naming another snapshot');
    assert.ok(existsSync(join(s.external_id, 'state.bin')));
    const listed = await p.listSnapshots!();
    assert.deepEqual(listed.map((x) => x.identity), [s.identity], 'the decoy\'s record names another identity: not listed');
    assert.equal(listed[0]!.external_id, s.external_id);
    assert.ok(typeof listed[0]!.created_at === 'number');
    await assert.rejects(p.create({ lease_id: 'd', identity: `${prefix}${randomUUID()}`, template, signal: AbortSignal.timeout(10_000), from_snapshot: { identity: decoy, external_id: join(root_, decoy) } }), (e) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
  });

  test('destroying the parent leaves the snapshot; it still forks; then deleteSnapshot removes it', async () => {
    assert.equal(await p.destroy(parent), 'destroyed');
    assert.ok(existsSync(join(s.external_id, 'state.bin')));
    const f = await lease(template, s);
    assert.equal((await sh(f, 'cat /root/snapfile')).trim(), 'before');
    assert.equal(await p.deleteSnapshot!(s), 'destroyed');
    assert.ok(!existsSync(s.external_id));
    assert.equal(await p.deleteSnapshot!(s), 'already_gone');
    assert.equal((await sh(f, 'cat /root/snapfile')).trim(), 'before', 'a running fork does not need the snapshot\'s directory');
    assert.equal(await p.destroy(f), 'destroyed');
    assert.deepEqual(await p.listSnapshots!(), []);
  });

  test('a qcow2 disk: the overlay is frozen into the snapshot (hard links, relative names, no copy); restore and fork see the disk as it was', async (t) => {
    const block = (word: string) => `printf '%-16s' ${word} | dd of=/dev/vda bs=512 seek=100 conv=notrunc 2>/dev/null; sync`;
    const readBlock = 'sync; echo 3 > /proc/sys/vm/drop_caches; dd if=/dev/vda bs=16 count=1 skip=3200 2>/dev/null';
    const m = await lease(diskTemplate);
    await sh(m, block('before'), diskTemplate);
    assert.equal((await sh(m, readBlock, diskTemplate)).trim(), 'before');
    const ds = await snap(m, diskTemplate);
    const rec = JSON.parse(await readFile(join(ds.external_id, 'snapshot.json'), 'utf8'));
    t.diagnostic(`disk snapshot: ${ds.size_bytes} bytes (state ${rec.state_bytes}, layer ${rec.disk.layer_bytes}); files ${rec.disk.files.join(' ')}`);
    assert.match(rec.disk.top, /^layer-[0-9a-f]+\.qcow2$/);
    assert.deepEqual(rec.disk.files, [rec.disk.top, 'saved-disk.qcow2']);
    const leaseDir = join(stateDir, m.identity);
    assert.equal((await stat(join(ds.external_id, rec.disk.top))).ino, (await stat(join(leaseDir, 'disk.qcow2'))).ino, 'the frozen layer is the overlay the machine ran on (a link, no copy)');
    const lr = await recordOf(m);
    assert.match(lr.overlay, /^top-[0-9a-f]+\.qcow2$/, 'the machine runs on a new top');
    const chain = JSON.parse((await execa('qemu-img', ['info', '-U', '--backing-chain', '--output=json', join(ds.external_id, rec.disk.top)])).stdout);
    assert.deepEqual(chain.map((e: { filename: string }) => e.filename), [join(ds.external_id, rec.disk.top), join(ds.external_id, 'saved-disk.qcow2'), diskTemplate.golden]);
    assert.equal(chain[0]['backing-filename'], 'saved-disk.qcow2');
    assert.equal(ds.size_bytes, rec.state_bytes + rec.disk.layer_bytes);

    await sh(m, block('after'), diskTemplate);
    assert.equal((await sh(m, readBlock, diskTemplate)).trim(), 'after');
    await p.restore!(m, ds, { template: diskTemplate, signal: AbortSignal.timeout(60_000) });
    await p.ready(m, { template: diskTemplate, signal: AbortSignal.timeout(60_000), stage: () => {} });
    assert.equal((await sh(m, readBlock, diskTemplate)).trim(), 'before', 'restore undid the write');
    await sh(m, block('again'), diskTemplate);
    // A second snapshot of the restored machine: its chain is three layers deep.
    const ds2 = await snap(m, diskTemplate);
    const rec2 = JSON.parse(await readFile(join(ds2.external_id, 'snapshot.json'), 'utf8'));
    assert.deepEqual(rec2.disk.files, [rec2.disk.top, rec.disk.top, 'saved-disk.qcow2']);
    await sh(m, block('later'), diskTemplate);
    assert.equal(await p.destroy(m), 'destroyed');
    assert.ok(existsSync(join(ds.external_id, rec.disk.top)), 'the snapshot keeps its layers after its machine is gone');
    const f = await lease(diskTemplate, ds);
    assert.equal((await sh(f, readBlock, diskTemplate)).trim(), 'before');
    assert.equal((await stat(join(stateDir, f.identity, rec.disk.top))).ino, (await stat(join(ds.external_id, rec.disk.top))).ino, 'the fork shares the layer');
    assert.equal(await p.destroy(f), 'destroyed');
    assert.equal(await p.deleteSnapshot!(ds), 'destroyed');
    const f2 = await lease(diskTemplate, ds2);
    assert.equal((await sh(f2, readBlock, diskTemplate)).trim(), 'again', 'the second snapshot, its first snapshot deleted meanwhile');
    assert.equal(await p.destroy(f2), 'destroyed');
    assert.equal(await p.deleteSnapshot!(ds2), 'destroyed');
    assert.deepEqual(readdirSync(join(stateDir, 'snapshots')).filter((e) => !e.endsWith('decoy')), []);
  });
});
