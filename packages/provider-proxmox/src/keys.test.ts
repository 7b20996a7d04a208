import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeSshKeys, generateLeaseKeyPair } from './keys.ts';

describe('proxmox: per-lease keys', () => {
  it('ssh-keygen reads both halves and derives the same public key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vmhub-keys-'));
    try {
      const k = generateLeaseKeyPair('vmhub-lease-1');
      writeFileSync(join(dir, 'id'), k.privateKey, { mode: 0o600 });
      writeFileSync(join(dir, 'id.pub'), k.publicKey + '\n');
      const derived = execFileSync('ssh-keygen', ['-y', '-f', join(dir, 'id')]).toString().trim();
      assert.equal(derived.split(' ').slice(0, 2).join(' '), k.publicKey.split(' ').slice(0, 2).join(' '));
      assert.match(execFileSync('ssh-keygen', ['-l', '-f', join(dir, 'id.pub')]).toString(), /ED25519/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sshkeys value uses only the urlencoded alphabet and %20 for spaces', () => {
    const k = generateLeaseKeyPair('user@host:x');
    const enc = encodeSshKeys([k.publicKey, k.publicKey]);
    assert.match(enc, /^[-%a-zA-Z0-9_.!~*'()]*$/);
    assert.ok(enc.includes('%20') && !enc.includes('+') && enc.includes('%0A') && enc.includes('%40') && enc.includes('%3A'));
    assert.equal(decodeURIComponent(enc), `${k.publicKey}\n${k.publicKey}`);
  });
});
