/**
 * sshAccess / pinSshHostKey on Proxmox (simulator + a real sshd on loopback standing in for the
 * guest): the key cloud-init got is the one sshAccess hands out, and it logs in over connect() as
 * the template's ciuser; the port is the one connect() must dial (address_override's); the key file
 * is 0600 under the context's state directory, so another process (the leases CLI, the reaper)
 * finds the same access and the pinned host key; the first pin wins; an adb template has none;
 * destroy drops the key and its file.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import ssh2 from 'ssh2';
import type { MachineRef, Provider, SshAccess } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { startSshd, type TestSshd } from '@vmhub/test-kit';
import proxmoxProvider from '../src/index.ts';
import { context, lease, startSim, template } from './helpers/setup.ts';

/** Log in with `access` over connect() and run `whoami`; resolves the user and the host key's SHA-256. */
async function whoami(provider: Provider, machine: MachineRef, access: SshAccess, tpl: ReturnType<typeof template>): Promise<{ user: string; hostKey: string }> {
  const sock = await provider.connect!(machine, access.port, { template: tpl });
  const client = new ssh2.Client();
  let hostKey = '';
  try {
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve()).once('error', reject);
      client.connect({ sock, username: access.user, privateKey: access.privateKey, hostVerifier: (key: Buffer) => { hostKey = createHash('sha256').update(key).digest('base64'); return true; } });
    });
    const user = await new Promise<string>((resolve, reject) => client.exec('whoami', (err, ch) => {
      if (err) return reject(err);
      let out = '';
      ch.on('data', (d: Buffer) => { out += d; }).on('close', () => resolve(out.trim()));
    }));
    return { user, hostKey };
  } finally {
    client.end();
  }
}

describe('proxmox: sshAccess and pinSshHostKey', () => {
  let sim: PveSimulator;
  let sshd: TestSshd;
  let stateDir: string;
  let provider: Provider;
  let machine: MachineRef;
  const { lease_id, identity } = lease('sshaccess');
  const make = (): Provider => proxmoxProvider.create({
    base_url: sim.hostPort, token_id: sim.token.tokenId, token: sim.token.secret, fingerprint: sim.certificate?.fingerprint256,
    task_poll_ms: 40, retry_base_ms: 20, request_timeout_ms: 5000,
  }, { ...context('sshaccess'), stateDir });
  const tpl = (): ReturnType<typeof template> => template({}, { address_override: `${sshd.host}:${sshd.port}`, ciuser: sshd.user });
  const keyDir = (): string => join(stateDir, 'provider-proxmox', 'keys');

  before(async () => {
    [sim, sshd] = await Promise.all([startSim(), startSshd()]);
    stateDir = mkdtempSync(join(tmpdir(), 'vmhub-sshaccess-'));
    provider = make();
    machine = await provider.create({ lease_id, identity, template: tpl(), signal: AbortSignal.timeout(30_000) });
    sshd.authorize(decodeURIComponent(String(sim.state.vm(Number(machine.external_id))?.config.sshkeys)));
  });
  after(async () => {
    await provider?.close?.();
    await sim?.close();
    await sshd?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('hands out the lease key for ciuser at the port connect() dials; it logs in; the file is 0600 under the state directory', async () => {
    const access = await provider.sshAccess!(machine, { template: tpl() });
    assert.ok(access);
    assert.equal(access.user, sshd.user);
    assert.equal(access.port, sshd.port, "address_override's port: connect() dials its host");
    assert.match(access.privateKey, /^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
    assert.equal(access.hostKey, undefined, 'nothing pinned before the first connection');
    const files = readdirSync(keyDir());
    assert.equal(files.length, 1);
    assert.equal(statSync(join(keyDir(), files[0]!)).mode & 0o777, 0o600);
    const seen = await whoami(provider, machine, access, tpl());
    assert.equal(seen.user, sshd.user);
    assert.equal(seen.hostKey.replace(/=+$/, ''), sshd.hostKeySha256, 'the guest sshd answered');
  });

  it('the first pin wins and another process with the same state directory sees it', async () => {
    const pin = `${sshd.hostKeySha256}=`; // as ssh2's host key hashes in base64 (padded)
    await provider.pinSshHostKey!(machine, pin);
    await provider.pinSshHostKey!(machine, 'AAAAnotTheKey=');
    assert.equal((await provider.sshAccess!(machine, { template: tpl() }))?.hostKey, pin);
    const other = make();
    try {
      const access = await other.sshAccess!(machine, { template: tpl() });
      assert.equal(access?.hostKey, pin);
      assert.equal((await whoami(other, machine, access!, tpl())).user, sshd.user);
    } finally {
      await other.close?.();
    }
  });

  it('an adb template (Android-x86: no sshd) has no access', async () => {
    assert.equal(await provider.sshAccess!(machine, { template: template({}, { channel: 'adb', address_override: `${sshd.host}:${sshd.port}` }) }), undefined);
  });

  it('destroy drops the key and its file', async () => {
    assert.equal(await provider.destroy(machine), 'destroyed');
    assert.equal(await provider.sshAccess!(machine, { template: tpl() }), undefined);
    assert.deepEqual(existsSync(keyDir()) ? readdirSync(keyDir()) : [], []);
  });
});
