/**
 * docker: lifecycle against the real engine — create → ready (three stages) → channel exec and
 * files → destroy → gone from the engine. Effects are checked inside the guest.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { GuestChannel, MachineRef } from '@vmhub/core';
import { writeTar } from '@vmhub/core';
import { containerExists, docker, ensureGolden, makeProvider, removeContainers, stages, template } from './fixture.ts';

describe('docker: lifecycle', { timeout: 240_000 }, () => {
  const { provider, context } = makeProvider();
  const lease = randomUUID();
  const identity = `${context.identityPrefix}${lease}`;
  let machine: MachineRef;
  let ch: GuestChannel;

  before(async () => {
    await ensureGolden();
  });
  after(async () => {
    await ch?.close();
    await removeContainers(identity);
    await provider.close?.();
  });

  it('creates a labelled container with limits, no network, no published ports', async () => {
    const t0 = Date.now();
    machine = await provider.create({ lease_id: lease, identity, template, signal: AbortSignal.timeout(60_000) });
    const info = await docker.json<any>('GET', `/containers/${machine.external_id}/json`);
    assert.equal(info.Name, `/${identity}`);
    assert.equal(info.Config.Labels['vmhub.identity'], identity);
    assert.equal(info.Config.Labels['vmhub.lease'], lease);
    assert.equal(info.Config.Labels['vmhub.template'], 'debian-x11');
    assert.ok(Math.abs(Number(info.Config.Labels['vmhub.created']) - t0) < 60_000);
    assert.equal(info.HostConfig.NetworkMode, 'none');
    assert.equal(info.HostConfig.NanoCpus, 1e9);
    assert.equal(info.HostConfig.Memory, 1024 * 1024 * 1024);
    assert.deepEqual(info.HostConfig.PortBindings ?? {}, {});
    assert.ok(info.Config.Env.includes('VMHUB_SCREEN=1280x800x24'));
  });

  it('create is idempotent per identity', async () => {
    const again = await provider.create({ lease_id: lease, identity, template, signal: AbortSignal.timeout(60_000) });
    assert.equal(again.external_id, machine.external_id);
    // A retried create that finds its container stopped starts it again.
    assert.equal((await docker.raw('POST', `/containers/${machine.external_id}/stop`, { query: { t: 0 } })).status, 204);
    assert.equal((await docker.json<any>('GET', `/containers/${machine.external_id}/json`)).State.Running, false);
    const restarted = await provider.create({ lease_id: lease, identity, template, signal: AbortSignal.timeout(60_000) });
    assert.equal(restarted.external_id, machine.external_id);
    assert.equal((await docker.json<any>('GET', `/containers/${machine.external_id}/json`)).State.Running, true);
  });

  it('ready reports container → display → desktop', async () => {
    const s = stages();
    const t0 = Date.now();
    await provider.ready(machine, { signal: AbortSignal.timeout(60_000), template, stage: s.stage });
    assert.deepEqual(s.seen, ['container:running', 'container:done', 'display:running', 'display:done', 'desktop:running', 'desktop:done']);
    process.stderr.write(`[lifecycle] ready in ${Date.now() - t0} ms after create\n`);
    ch = await provider.channel!(machine, template);
    assert.equal(ch.home, '/home/user');
    const r = await ch.exec(['xdpyinfo'], { env: { DISPLAY: ':0' } });
    assert.match(r.stdout.toString(), /dimensions:\s+1280x800 pixels/);
  });

  it('each channel() call opens its own channel (its own helper); closing one leaves the other working', async () => {
    const helpers = async (): Promise<number> => Number((await ch.exec(['pgrep', '-c', '-f', '^vmhub-exec-helper'])).stdout.toString().trim());
    const before = await helpers();
    const other = await provider.channel!(machine, template);
    try {
      assert.notEqual(other, ch, 'not pooled: a second call is a second channel');
      assert.equal(await helpers(), before + 1, 'the second channel started its own helper in the guest');
      assert.equal((await other.exec(['echo', 'other'])).stdout.toString(), 'other\n');
    } finally {
      await other.close();
    }
    const until = Date.now() + 5000;
    while ((await helpers()) !== before && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await helpers(), before, 'closing the channel ended its helper');
    await assert.rejects(other.exec(['true']), (e: any) => e.code === 'INVALID_REQUEST' && /closed/.test(e.message));
    assert.equal((await ch.exec(['echo', 'first'])).stdout.toString(), 'first\n', 'the first channel still works');
  });

  it('networking is off: only lo inside', async () => {
    const r = await ch.exec(['ls', '/sys/class/net']);
    assert.deepEqual(r.stdout.toString().trim().split(/\s+/), ['lo']);
  });

  it('exec: exit code, separate stderr, stdin, env, cwd, user', async () => {
    const r = await ch.exec(['sh', '-c', 'cat; echo "to err" >&2; echo "$FOO $(pwd) $(id -un)"; exit 42'], { stdin: 'héllo ✓\n', env: { FOO: 'bar' }, cwd: '/tmp' });
    assert.equal(r.exit_code, 42);
    assert.equal(r.stdout.toString(), 'héllo ✓\nbar /tmp user\n');
    assert.equal(r.stderr.toString(), 'to err\n');
    assert.equal(r.timed_out, false);
    const root = await ch.exec(['id', '-u'], { user: 'root' });
    assert.equal(root.stdout.toString().trim(), '0');
    const home = await ch.exec(['pwd']);
    assert.equal(home.stdout.toString().trim(), '/home/user');
    const missing = await ch.exec(['no-such-command-vmhub']);
    assert.equal(missing.exit_code, 127);
    assert.match(missing.stderr.toString(), /cannot run no-such-command-vmhub/);
  });

  it('exec: timeout kills the process (timed_out, exit_code null)', async () => {
    const t0 = Date.now();
    const r = await ch.exec(['sh', '-c', 'echo started; exec sleep 30'], { timeoutMs: 400 });
    assert.equal(r.timed_out, true);
    assert.equal(r.exit_code, null);
    assert.equal(r.stdout.toString(), 'started\n');
    assert.ok(Date.now() - t0 < 3000);
    const left = await ch.exec(['pgrep', '-f', 'sleep 30']);
    assert.equal(left.stdout.toString(), '', 'the timed-out process is gone from the guest');
  });

  it('exec: output caps per stream (truncated)', async () => {
    const r = await ch.exec(['sh', '-c', 'head -c 300000 /dev/zero; head -c 10 /dev/zero >&2'], { maxOutputBytes: 1000 });
    assert.equal(r.stdout.length, 1000);
    assert.equal(r.stderr.length, 10);
    assert.equal(r.truncated, true);
    assert.equal(r.exit_code, 0);
  });

  it('exec: concurrent execs on one channel run together and keep their own output', async () => {
    // A barrier, not a stopwatch: each exec marks itself in a shared dir and waits (bounded) until
    // all 12 have; if the channel serialised them, the first would give up with exit 99.
    const dir = (await ch.exec(['mktemp', '-d'])).stdout.toString().trim();
    const barrier = 'touch "$1/$0"; n=0; while [ "$(ls "$1" | wc -l)" -lt 12 ]; do n=$((n+1)); [ "$n" -gt 200 ] && exit 99; sleep 0.05; done; echo "$0"; echo "e$0" >&2; exit "$0"';
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => ch.exec(['sh', '-c', barrier, String(i), dir], { timeoutMs: 20_000 })));
    results.forEach((r, i) => {
      assert.equal(r.exit_code, i, `exec ${i} did not meet the others (stderr: ${r.stderr.toString()})`);
      assert.equal(r.stdout.toString(), `${i}\n`);
      assert.equal(r.stderr.toString(), `e${i}\n`);
    });
    await ch.exec(['rm', '-rf', dir]);
  });

  it('exec: large stdin through the helper', async () => {
    const data = randomBytes(3 * 1024 * 1024);
    const r = await ch.exec(['sha256sum'], { stdin: data });
    const { createHash } = await import('node:crypto');
    assert.equal(r.stdout.toString().split(' ')[0], createHash('sha256').update(data).digest('hex'));
  });

  it('exec: a helper killed inside the guest fails its execs, and the channel keeps working', async () => {
    const ps = await ch.exec(['ps', '-eo', 'args']);
    assert.match(ps.stdout.toString(), /^vmhub-exec-helper\s*$/m, 'the helper shows a short title in ps');
    const killed = await ch.exec(['pkill', '-f', '^vmhub-exec-helper'], { user: 'root' });
    assert.equal(killed.exit_code, null);
    assert.match(killed.stderr.toString(), /exec helper lost/);
    const r = await ch.exec(['echo', 'still here']);
    assert.equal(r.stdout.toString(), 'still here\n');
    assert.equal(r.exit_code, 0);
  });

  it('exec: argv and env are validated', async () => {
    await assert.rejects(ch.exec([]), (e: any) => e.code === 'INVALID_REQUEST');
    await assert.rejects(ch.exec(['echo', 'a\0b']), (e: any) => e.code === 'INVALID_REQUEST');
    await assert.rejects(ch.exec(['true'], { env: { 'A=B': 'x' } }), (e: any) => e.code === 'INVALID_REQUEST');
  });

  it('files: 5 MB random binary put/get byte-exact, owned by the desktop user', async () => {
    const data = randomBytes(5 * 1024 * 1024);
    await ch.putFile('/home/user/new/dir/blob.bin', data, { mode: 0o600 });
    const back = await ch.getFile('new/dir/blob.bin');
    assert.ok(back.equals(data));
    const st = await ch.exec(['stat', '-c', '%u:%g %a %s', '/home/user/new/dir/blob.bin', '/home/user/new/dir']);
    assert.equal(st.stdout.toString(), `1000:1000 600 ${data.length}\n1000:1000 755 4096\n`);
  });

  it('files: missing → NOT_FOUND, over the cap → INVALID_REQUEST naming the cap', async () => {
    await assert.rejects(ch.getFile('/nope/missing.txt'), (e: any) => e.code === 'NOT_FOUND');
    await ch.putFile('/tmp/ten.txt', Buffer.from('0123456789'));
    await assert.rejects(ch.getFile('/tmp/ten.txt', { maxBytes: 5 }), (e: any) => e.code === 'INVALID_REQUEST' && /cap of 5 bytes/.test(e.message));
    await assert.rejects(ch.getFile('/tmp'), (e: any) => e.code === 'INVALID_REQUEST' && /directory/.test(e.message));
    await assert.rejects(ch.getFile('../etc/passwd'), (e: any) => e.code === 'INVALID_REQUEST');
  });

  it('files: a symlink is followed to its file', async () => {
    await ch.exec(['ln', '-s', '/tmp/ten.txt', '/home/user/link.txt']);
    assert.equal((await ch.getFile('link.txt')).toString(), '0123456789');
  });

  it('putArchive streams a tree into a new directory, owners rewritten', async () => {
    const tar = writeTar([
      { name: 'src/', type: 'dir' },
      { name: 'src/main.txt', data: Buffer.from('main\n') },
      { name: `deep/${'x'.repeat(120)}/file.txt`, data: Buffer.from('long name\n'), mode: 0o755 },
    ]);
    const chunks = [tar.subarray(0, 700), tar.subarray(700, 1500), tar.subarray(1500)];
    await ch.putArchive!('/home/user/proj', Readable.from(chunks));
    const r = await ch.exec(['sh', '-c', `cat src/main.txt deep/${'x'.repeat(120)}/file.txt; stat -c '%u:%g' src/main.txt`], { cwd: '/home/user/proj' });
    assert.equal(r.stdout.toString(), 'main\nlong name\n1000:1000\n');
  });

  it('destroy verifies identity, removes the container, and the engine no longer knows it', async () => {
    await ch.close();
    assert.equal(await provider.destroy(machine), 'destroyed');
    const res = await docker.raw('GET', `/containers/${machine.external_id}/json`);
    assert.equal(res.status, 404);
    assert.equal(await containerExists(identity), false);
    assert.equal(await provider.destroy(machine), 'already_gone');
  });
});
