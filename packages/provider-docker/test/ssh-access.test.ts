/**
 * Per-lease SSH keys on debian-x11 (real sshd in real containers): the image holds no host key and
 * no authorized key; create gives the lease a key pair whose public half is the lease user's only
 * authorized key (0700 ~/.ssh, 0600 file, owned by the user) and whose private half is one 0600
 * file under <stateDir>/provider-docker/keys; sshAccess + connect() log in as the user (sshd on
 * 127.0.0.1 only, no password, no other key); the host key is the container's own, pinned once
 * (first pin wins, another provider instance on the same state directory sees it); a golden
 * without sshd gets nothing; destroy — by another instance, as the reaper's — drops the key file.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import ssh2 from 'ssh2';
import { generateLeaseKeyPair, machineIdentity, type MachineRef, type Provider, type SshAccess, type TemplateConfig } from '@vmhub/core';
import dockerProvider from '../src/index.ts';
import { docker, ensureGolden, removeContainers, template, testContext } from './fixture.ts';

const run = promisify(execFile);

/** Log in over connect() with this user and key (or password); the command's output and the host key's SHA-256. */
async function ssh(provider: Provider, machine: MachineRef, login: { user: string; privateKey?: string; password?: string }, command = 'whoami'): Promise<{ out: string; hostKey: string }> {
  const sock = await provider.connect!(machine, 22, { template });
  const client = new ssh2.Client();
  let hostKey = '';
  try {
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve()).once('error', reject);
      client.connect({ sock, username: login.user, privateKey: login.privateKey, password: login.password, tryKeyboard: false, readyTimeout: 10_000, hostVerifier: (key: Buffer) => { hostKey = createHash('sha256').update(key).digest('base64'); return true; } });
    });
    const out = await new Promise<string>((resolve, reject) => client.exec(command, (err, ch) => {
      if (err) return reject(err);
      let text = '';
      ch.on('data', (d: Buffer) => { text += d; }).on('close', () => resolve(text.trim()));
    }));
    return { out, hostKey };
  } finally {
    client.end();
    sock.destroy();
  }
}

/** A command's stdout in the container, as root. */
async function inGuest(provider: Provider, machine: MachineRef, argv: string[]): Promise<string> {
  const ch = await provider.channel!(machine, template);
  try {
    return (await ch.exec(argv, { user: 'root' })).stdout.toString().trim();
  } finally {
    await ch.close();
  }
}

describe('docker: per-lease SSH keys (debian-x11)', { timeout: 240_000 }, () => {
  const context = testContext();
  const stateDir = mkdtempSync(join(tmpdir(), 'vmhub-docker-ssh-'));
  const keyDir = join(stateDir, 'provider-docker', 'keys');
  const make = (): Provider => dockerProvider.create({}, { ...context, stateDir });
  let provider: Provider;
  let machine: MachineRef;
  let access: SshAccess;
  const images: string[] = [];
  const containers: string[] = [];

  const lease = async (tpl: TemplateConfig): Promise<MachineRef> => {
    const id = randomUUID();
    const m = await provider.create({ lease_id: id, identity: machineIdentity(context.instance, id), template: tpl, signal: AbortSignal.timeout(60_000) });
    containers.push(m.external_id);
    await provider.ready(m, { signal: AbortSignal.timeout(60_000), stage: () => undefined, template: tpl });
    return m;
  };

  before(async () => {
    await ensureGolden();
    provider = make();
    machine = await lease(template);
    access = (await provider.sshAccess!(machine, { template }))!;
  });
  after(async () => {
    await removeContainers(...containers);
    for (const image of images) await docker.raw('DELETE', `/images/${encodeURIComponent(image)}`, { query: { force: true } });
    await provider?.close?.();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('the golden image holds no host key and no authorized key', async () => {
    const { stdout } = await run('docker', ['run', '--rm', '--network', 'none', '--entrypoint', 'sh', template.golden, '-c',
      'ls /etc/ssh/ssh_host_* /root/.ssh /home/*/.ssh/authorized_keys 2>/dev/null; test -x /usr/sbin/sshd && echo sshd-present']);
    assert.equal(stdout.trim(), 'sshd-present');
  });

  it('sshAccess: the lease user, port 22, the private half in one 0600 file; nothing pinned yet', async () => {
    assert.equal(access.user, 'user');
    assert.equal(access.port, 22);
    assert.match(access.privateKey, /^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    assert.equal(access.hostKey, undefined);
    assert.equal(machine.details?.ssh_port, 22);
    assert.equal(JSON.stringify(machine).includes('PRIVATE'), false, 'no secret in the MachineRef');
    const files = readdirSync(keyDir);
    assert.deepEqual(files, [`${machine.identity}.json`]);
    assert.equal(statSync(join(keyDir, files[0]!)).mode & 0o777, 0o600);
    assert.equal(statSync(keyDir).mode & 0o777, 0o700);
  });

  it('in the guest: the public half is the user\'s only authorized key (0700 ~/.ssh, 0600 file, the user\'s); sshd on 127.0.0.1 only', async () => {
    const held = JSON.parse(readFileSync(join(keyDir, `${machine.identity}.json`), 'utf8')) as { publicKey: string };
    assert.equal(await inGuest(provider, machine, ['cat', '/home/user/.ssh/authorized_keys']), held.publicKey);
    assert.equal(await inGuest(provider, machine, ['stat', '-c', '%a %U', '/home/user/.ssh', '/home/user/.ssh/authorized_keys']), '700 user\n600 user');
    const listening = (await inGuest(provider, machine, ['sh', '-c', 'awk \'$4 == "0A" {print $2}\' /proc/net/tcp /proc/net/tcp6'])).split('\n');
    assert.ok(listening.includes('0100007F:0016'), `sshd listens on 127.0.0.1:22: ${listening.join(' ')}`);
    assert.equal(listening.filter((a) => a.endsWith(':0016') && a !== '0100007F:0016').length, 0, 'and nowhere else');
    assert.equal(await inGuest(provider, machine, ['sh', '-c', 'ls /root/.ssh 2>/dev/null | wc -l']), '0');
  });

  it('logs in over connect() as the user; the host key is the container\'s own', async () => {
    const r = await ssh(provider, machine, { user: access.user, privateKey: access.privateKey });
    assert.equal(r.out, 'user');
    const pub = (await inGuest(provider, machine, ['cat', '/etc/ssh/ssh_host_ed25519_key.pub'])).split(' ')[1]!;
    assert.equal(r.hostKey, createHash('sha256').update(Buffer.from(pub, 'base64')).digest('base64'));
  });

  it('no password, no other key, no root', async () => {
    await assert.rejects(ssh(provider, machine, { user: 'user', password: 'user' }), /authentication methods failed/);
    await assert.rejects(ssh(provider, machine, { user: 'user', privateKey: generateLeaseKeyPair('other').privateKey }), /authentication methods failed/);
    await assert.rejects(ssh(provider, machine, { user: 'root', privateKey: access.privateKey }), /authentication methods failed/);
  });

  it('pinSshHostKey: the first pin wins; another instance on the same state directory sees it', async () => {
    const { hostKey } = await ssh(provider, machine, { user: access.user, privateKey: access.privateKey });
    await provider.pinSshHostKey!(machine, hostKey);
    await provider.pinSshHostKey!(machine, 'AAAAnotTheKey=');
    assert.equal((await provider.sshAccess!(machine, { template }))?.hostKey, hostKey);
    const other = make();
    try {
      assert.equal((await other.sshAccess!(machine, { template }))?.hostKey, hostKey);
    } finally {
      await other.close?.();
    }
  });

  it('a golden without sshd (no vmhub.ssh.port label): no key, no sshd, no access', async () => {
    const tag = `vmhub-test/nossh:${randomUUID().slice(0, 8)}`;
    // The lease's container as an image, minus the label (and the environment a commit keeps).
    const res = await docker.raw('POST', '/commit', { query: { container: machine.external_id, repo: tag.split(':')[0], tag: tag.split(':')[1], changes: ['LABEL vmhub.ssh.port=', 'ENV VMHUB_SSH_AUTHORIZED_KEY='] } });
    assert.equal(res.status, 201, res.body.toString());
    images.push(tag);
    const before = readdirSync(keyDir).length;
    const plain = await lease({ ...template, id: 'nossh', golden: tag });
    assert.equal(await provider.sshAccess!(plain, { template }), undefined);
    assert.equal(plain.details?.ssh_port, undefined);
    assert.equal(readdirSync(keyDir).length, before, 'no key file made');
    assert.equal(await inGuest(provider, plain, ['sh', '-c', 'pgrep -x sshd | wc -l']), '0');
  });

  it('destroy, by another instance on the same state directory (as the reaper\'s), drops the key file', async () => {
    const reaper = make();
    try {
      assert.equal(await reaper.destroy(machine), 'destroyed');
    } finally {
      await reaper.close?.();
    }
    assert.equal(existsSync(join(keyDir, `${machine.identity}.json`)), false);
    assert.equal(await make().sshAccess!(machine, { template }), undefined);
  });
});
