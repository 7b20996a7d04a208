/**
 * Per-lease SSH on real qemu (two TCG boots of tiny-console-agent through the tiny-console-ssh
 * template, side by side): each lease's key, made at create and given to the guest in its NoCloud
 * seed, logs in as `user` with ssh2 over provider.connect(machine, 22) and runs a command; the
 * other lease's key is refused, and so is a password; each guest made its own host key, pinned at
 * the first connection. The image holds no key (its cpio listing), the key file is 0600 under
 * `<state_dir>/provider-qemu/keys` (no instance state directory in this context) and is gone after destroy — also when destroy comes from
 * another provider instance with only the state directory (the reaper's way).
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { Client } from 'ssh2';
import type { MachineRef, Provider, SshAccess, TemplateConfig } from '@vmhub/core';
import plugin, { buildGolden, tinyConsoleSshTemplate } from '../src/index.ts';
import { hostnameFor } from '../src/nocloud-seed.ts';
import { testContext, testPrefix } from './helpers.ts';

interface Login { ok: boolean; stdout: string; code: number | null; hostKey?: string; error?: string }

/** One ssh2 session over `sock`: log in with `auth`, run `command`, return its output. */
function sshRun(sock: Duplex, user: string, auth: { privateKey: string } | { password: string }, command: string): Promise<Login> {
  return new Promise((resolve) => {
    const c = new Client();
    let hostKey: string | undefined;
    const timer = setTimeout(() => { c.end(); resolve({ ok: false, stdout: '', code: null, error: 'timed out' }); }, 60_000);
    const done = (r: Login): void => { clearTimeout(timer); c.end(); resolve({ ...r, ...(hostKey ? { hostKey } : {}) }); };
    c.on('ready', () => {
      c.exec(command, (err, stream) => {
        if (err) return done({ ok: false, stdout: '', code: null, error: err.message });
        let out = '';
        stream.on('data', (d: Buffer) => { out += d.toString(); });
        stream.stderr.on('data', () => {});
        stream.on('close', (code: number | null) => done({ ok: true, stdout: out, code }));
      });
    });
    c.on('error', (err: Error & { level?: string }) => done({ ok: false, stdout: '', code: null, error: `${err.level ?? ''}: ${err.message}` }));
    c.connect({
      sock, username: user, ...auth, tryKeyboard: false, readyTimeout: 60_000,
      hostVerifier: (key: Buffer) => { hostKey = createHash('sha256').update(key).digest('base64'); return true; },
    });
  });
}

/** The names in a newc cpio archive. */
function cpioNames(buf: Buffer): string[] {
  const names: string[] = [];
  let off = 0;
  const align = (n: number) => (n + 3) & ~3;
  while (off + 110 <= buf.length) {
    const h = buf.toString('latin1', off, off + 110);
    const size = parseInt(h.slice(54, 62), 16);
    const nameLen = parseInt(h.slice(94, 102), 16);
    const name = buf.toString('latin1', off + 110, off + 110 + nameLen - 1);
    if (name === 'TRAILER!!!') break;
    names.push(name);
    off = align(align(off + 110 + nameLen) + size);
  }
  return names;
}

describe('qemu: per-lease SSH through a NoCloud seed, on real qemu', { timeout: 600_000 }, () => {
  const prefix = testPrefix();
  let root: string;
  let state: string;
  let template: TemplateConfig;
  let provider: Provider;
  const machines: MachineRef[] = [];
  const access: SshAccess[] = [];
  let bootMs = 0;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-ssh-'));
    state = join(root, 'state');
    await buildGolden('tiny-console-agent', { dir: join(root, 'golden') });
    template = tinyConsoleSshTemplate(join(root, 'golden'));
    provider = plugin.create({ state_dir: state }, testContext(prefix));
    const t0 = Date.now();
    await Promise.all([0, 1].map(async (i) => {
      const identity = `${prefix}${randomUUID()}`;
      const m = await provider.create({ lease_id: identity.slice(prefix.length), identity, template, signal: AbortSignal.timeout(60_000) });
      machines[i] = m;
      const stages: string[] = [];
      await provider.ready(m, { template, signal: AbortSignal.timeout(300_000), stage: (name, status, detail) => { stages.push(`${name} ${status} ${detail ?? ''}`); } });
      assert.ok(stages.some((s) => /^ssh done sshd answered on guest port 22 \(SSH-2\.0-OpenSSH/.test(s)), stages.join(' | '));
      access[i] = (await provider.sshAccess!(m, { template }))!;
    }));
    bootMs = Date.now() - t0;
  });

  after(async () => {
    for (const m of machines) if (m) await provider.destroy(m).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  });

  test('each lease logs in with its own key over connect(22) and runs a command as the lease user; the host key is pinned', async (t) => {
    t.diagnostic(`two leases created and ready (side by side, TCG) in ${bootMs} ms`);
    for (const [i, m] of machines.entries()) {
      const a = access[i]!;
      assert.equal(a.user, 'user');
      assert.equal(a.port, 22);
      assert.match(a.privateKey, /^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
      assert.equal(a.hostKey, undefined, 'no host key pinned before the first connection');
      assert.equal(m.details?.restored_from, undefined, 'an ssh lease cold-boots');
      const r = await sshRun(await provider.connect!(m, a.port, { template }), a.user, { privateKey: a.privateKey }, 'id -un; echo ok; hostname; stat -c %a ~/.ssh/authorized_keys');
      assert.ok(r.ok, r.error);
      assert.equal(r.code, 0);
      assert.deepEqual(r.stdout.trim().split('\n'), ['user', 'ok', hostnameFor(m.identity), '600']);
      await provider.pinSshHostKey!(m, r.hostKey!);
      await provider.pinSshHostKey!(m, 'another-key-later');
      assert.equal((await provider.sshAccess!(m, { template }))?.hostKey, r.hostKey, 'the first pin wins');
      const serial = await readFile(join(state, m.identity, 'serial.log'), 'utf8');
      assert.match(serial, new RegExp(`vmhub-nocloud: instance ${m.identity}: sshd listening on port 22`), 'the guest read this lease\'s own seed');
    }
    const [a, b] = await Promise.all(machines.map((m) => provider.sshAccess!(m, { template })));
    assert.notEqual(a!.hostKey, b!.hostKey, 'every guest made its own host key at boot');
    assert.notEqual(a!.privateKey, b!.privateKey);
    assert.ok(!existsSync(join(state, '.saved-states')), 'no saved state is made for an ssh template');
  });

  test('the other lease\'s key is refused, and so is a password', async () => {
    for (const [i, j] of [[0, 1], [1, 0]] as const) {
      const r = await sshRun(await provider.connect!(machines[i]!, 22, { template }), 'user', { privateKey: access[j]!.privateKey }, 'echo should-not-run');
      assert.equal(r.ok, false, `lease ${j}'s key must not open lease ${i}`);
      assert.match(r.error ?? '', /authentication/i);
    }
    const pw = await sshRun(await provider.connect!(machines[0]!, 22, { template }), 'user', { password: 'user' }, 'echo should-not-run');
    assert.equal(pw.ok, false);
    assert.match(pw.error ?? '', /authentication/i);
    const root = await sshRun(await provider.connect!(machines[0]!, 22, { template }), 'root', { privateKey: access[0]!.privateKey }, 'echo should-not-run');
    assert.equal(root.ok, false, 'root is not a way in');
  });

  test('the golden\'s initramfs holds sshd and the NoCloud reader but no authorized_keys and no host key', async () => {
    const names = cpioNames(gunzipSync(await readFile(join(root, 'golden', 'tiny-console-agent', 'initrd.img'))));
    for (const want of ['usr/sbin/sshd', 'usr/bin/ssh-keygen', 'etc/ssh/sshd_config', 'sbin/vmhub-nocloud', 'etc/vmhub/nocloud-keys.awk']) assert.ok(names.includes(want), want);
    assert.deepEqual(names.filter((n) => /authorized_keys|ssh_host_|\.ssh(\/|$)|id_(rsa|ed25519|ecdsa)/.test(n)), []);
    const { stdout } = await execa('sh', ['-c', `zcat '${join(root, 'golden', 'tiny-console-agent', 'initrd.img')}' | cpio -t --quiet`]);
    assert.deepEqual(stdout.split('\n').filter(Boolean), names, 'cpio(1) lists the same entries');
  });

  test('the key file is 0600 under <state_dir>/provider-qemu/keys and gone after destroy, also from another provider instance (the reaper)', async () => {
    const keys = join(state, 'provider-qemu', 'keys');
    assert.equal((await stat(keys)).mode & 0o777, 0o700);
    for (const m of machines) {
      assert.equal((await stat(join(keys, `${m.identity}.json`))).mode & 0o777, 0o600);
      assert.ok(existsSync(join(state, m.identity, 'seed.iso')));
    }
    assert.equal(await provider.destroy(machines[0]!), 'destroyed');
    assert.ok(!existsSync(join(keys, `${machines[0]!.identity}.json`)));
    assert.ok(!existsSync(join(state, machines[0]!.identity)), 'the seed went with the state directory');
    assert.equal(await provider.sshAccess!(machines[0]!, { template }), undefined);
    const reaper = plugin.create({ state_dir: state }, testContext(prefix));
    assert.equal((await reaper.sshAccess!(machines[1]!, { template }))?.privateKey, access[1]!.privateKey, 'another instance finds the key from the state directory');
    assert.equal(await reaper.destroy(machines[1]!), 'destroyed');
    assert.ok(!existsSync(join(keys, `${machines[1]!.identity}.json`)));
    assert.equal(await provider.sshAccess!(machines[1]!, { template }).catch(() => 'threw'), undefined, 'nothing of it is left, in memory either');
  });
});
