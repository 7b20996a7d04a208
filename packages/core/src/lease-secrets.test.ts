import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { generateLeaseKeyPair } from './lease-keys.ts';
import { LeaseSecrets } from './lease-secrets.ts';

describe('proxmox: lease secrets', () => {
  it('memory only without a state dir; 0600 files with one, readable after a restart, removed on drop', () => {
    const mem = new LeaseSecrets();
    const k = generateLeaseKeyPair('c');
    mem.put('vmhub-a-1', k);
    assert.equal(mem.get('vmhub-a-1'), k);
    mem.drop('vmhub-a-1');
    assert.equal(mem.get('vmhub-a-1'), undefined);

    const dir = mkdtempSync(join(tmpdir(), 'vmhub-secrets-'));
    try {
      new LeaseSecrets(join(dir, 'provider-proxmox', 'keys')).put('vmhub-a-2', k);
      const keyDir = join(dir, 'provider-proxmox', 'keys');
      const [file] = readdirSync(keyDir);
      assert.equal(statSync(join(keyDir, file)).mode & 0o777, 0o600);
      assert.equal(statSync(keyDir).mode & 0o777, 0o700);
      const restarted = new LeaseSecrets(join(dir, 'provider-proxmox', 'keys'));
      assert.deepEqual(restarted.get('vmhub-a-2'), k);
      restarted.drop('vmhub-a-2');
      assert.equal(existsSync(join(keyDir, file)), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the guest host key is pinned once per lease, kept across a restart and dropped with the key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vmhub-secrets-'));
    try {
      const s = new LeaseSecrets(join(dir, 'provider-proxmox', 'keys'));
      const k = generateLeaseKeyPair('c');
      s.pinHostKey('vmhub-a-3', 'fp-before-create');
      assert.equal(s.get('vmhub-a-3'), undefined, 'no pin without a lease key');
      s.put('vmhub-a-3', k);
      s.pinHostKey('vmhub-a-3', 'fp-one');
      s.pinHostKey('vmhub-a-3', 'fp-two');
      assert.equal(s.get('vmhub-a-3')?.hostKey, 'fp-one', 'the first pin wins');
      assert.equal(s.get('vmhub-a-3')?.privateKey, k.privateKey);
      const restarted = new LeaseSecrets(join(dir, 'provider-proxmox', 'keys'));
      assert.equal(restarted.get('vmhub-a-3')?.hostKey, 'fp-one');
      restarted.drop('vmhub-a-3');
      assert.equal(new LeaseSecrets(join(dir, 'provider-proxmox', 'keys')).get('vmhub-a-3'), undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('forProvider keeps keys under <stateDir>/<provider>/keys; sshAccess answers from the held key and its pin', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vmhub-secrets-'));
    try {
      const s = LeaseSecrets.forProvider('provider-x', dir);
      const k = generateLeaseKeyPair('c');
      assert.equal(s.sshAccess('vmhub-a-4', { user: 'u', port: 22 }), undefined, 'no key held: no access');
      s.put('vmhub-a-4', k);
      assert.equal(readdirSync(join(dir, 'provider-x', 'keys')).length, 1);
      assert.deepEqual(s.sshAccess('vmhub-a-4', { user: 'u', port: 2222 }), { user: 'u', privateKey: k.privateKey, port: 2222 });
      s.pinHostKey('vmhub-a-4', 'fp');
      assert.deepEqual(LeaseSecrets.forProvider('provider-x', dir).sshAccess('vmhub-a-4', { user: 'u', port: 22 }), { user: 'u', privateKey: k.privateKey, port: 22, hostKey: 'fp' });
      const mem = LeaseSecrets.forProvider('provider-x', undefined);
      mem.put('vmhub-a-5', k);
      assert.equal(existsSync(join(dir, 'provider-x', 'keys', 'vmhub-a-5.json')), false, 'no state dir: memory only');
      assert.equal(mem.sshAccess('vmhub-a-5', { user: 'u', port: 22 })?.privateKey, k.privateKey);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
