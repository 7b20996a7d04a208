/**
 * The NoCloud seed writer: the image's volume label and files read back with the host's own tools
 * (blkid from util-linux, isoinfo from genisoimage), and the golden's minimal reader (the awk
 * program tiny-console-ssh.ts puts in the initramfs, run here by the same busybox) finding exactly
 * the lease user's key in what the writer wrote — and in hand-written cloud-configs of the same
 * block style.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { generateLeaseKeyPair, VmhubError } from '@vmhub/core';
import { hostnameFor, metaData, SEED_LABEL, userData, writeNoCloudSeed } from './nocloud-seed.ts';
import { NOCLOUD_KEYS_AWK } from './tiny-console-ssh.ts';

let dir: string;
before(async () => { dir = await mkdtemp(join(tmpdir(), 'vmhub-seed-')); });
after(async () => { await rm(dir, { recursive: true, force: true }); });

/** Run the guest's reader (busybox awk, as in the initramfs) over a user-data text. */
async function guestReader(text: string): Promise<string[]> {
  const awk = join(dir, 'keys.awk');
  const ud = join(dir, `ud-${Math.random().toString(16).slice(2)}`);
  await writeFile(awk, NOCLOUD_KEYS_AWK);
  await writeFile(ud, text);
  const { stdout } = await execa('busybox', ['awk', '-f', awk, ud]);
  return stdout.split('\n').filter(Boolean);
}

describe('NoCloud seed', () => {
  const keys = generateLeaseKeyPair('vmhub-lease-1');
  const input = { instanceId: 'vmhub-t1-lease.1_a', user: 'user', authorizedKeys: [keys.publicKey] };

  test('the image is ISO 9660 labelled cidata, 0600, with exactly meta-data and user-data', async () => {
    const seed = join(dir, 'seed.iso');
    await writeNoCloudSeed(seed, input);
    assert.equal((await stat(seed)).mode & 0o777, 0o600);
    const { stdout: blk } = await execa('blkid', ['-o', 'export', seed]);
    assert.match(blk, /^TYPE=iso9660$/m);
    assert.match(blk, new RegExp(`^LABEL=${SEED_LABEL}$`, 'm'));
    const { stdout: files } = await execa('isoinfo', ['-i', seed, '-R', '-f']);
    assert.deepEqual(files.split('\n').filter(Boolean).sort(), ['/meta-data', '/user-data']);
    const read = async (f: string) => (await execa('isoinfo', ['-i', seed, '-R', '-x', f])).stdout + '\n';
    assert.equal(await read('/meta-data'), metaData(input));
    assert.equal(await read('/user-data'), userData(input));
    assert.equal(await read('/meta-data'), 'instance-id: "vmhub-t1-lease.1_a"\nlocal-hostname: "vmhub-t1-lease-1-a"\n');
    assert.ok(!(await read('/user-data')).includes('PRIVATE'), 'only the public half is in the seed');
    await assert.rejects(stat(`${seed}.d`), 'the staging directory is removed');
  });

  test('user-data is a #cloud-config giving the user the key, without passwords; the guest reader finds it', async () => {
    const ud = userData(input);
    assert.match(ud, /^#cloud-config\n/);
    assert.match(ud, /^users:\n {2}- name: "user"\n {4}lock_passwd: true\n {4}ssh_authorized_keys:\n {6}- "ssh-ed25519 AAAA\S+ vmhub-lease-1"\n/m);
    assert.match(ud, /^ssh_pwauth: false$/m);
    assert.deepEqual(await guestReader(ud), [`user\t${keys.publicKey}`]);
  });

  test('the guest reader: per user, other lists and top-level keys ignored, unquoted and same-column items', async () => {
    const text = [
      '#cloud-config',
      'ssh_authorized_keys:',
      '  - ssh-ed25519 AAAAtop top-level',
      'users:',
      '  - default',
      '  - name: alice',
      '    groups: [wheel]',
      '    ssh_authorized_keys:',
      '    - ssh-ed25519 AAAAa1 alice-1',
      "    - 'ssh-ed25519 AAAAa2 alice-2'",
      '    shell: /bin/sh',
      '  - name: "bob"',
      '    ssh_authorized_keys:',
      '      - "ssh-ed25519 AAAAb1 bob-1"',
      'runcmd:',
      '  - [ echo, "- not a key" ]',
      '',
    ].join('\r\n');
    assert.deepEqual(await guestReader(text), ['alice\tssh-ed25519 AAAAa1 alice-1', 'alice\tssh-ed25519 AAAAa2 alice-2', 'bob\tssh-ed25519 AAAAb1 bob-1']);
  });

  test('bad input is refused typed; a hostname is a DNS label', async () => {
    const invalid = (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST';
    assert.throws(() => userData({ ...input, authorizedKeys: [] }), invalid);
    assert.throws(() => userData({ ...input, authorizedKeys: ['ssh-ed25519 AAAA x\nusers: []'] }), invalid);
    assert.throws(() => metaData({ ...input, instanceId: '' }), invalid);
    assert.equal(hostnameFor(`VMHUB_${'x'.repeat(80)}`), `vmhub-${'x'.repeat(57)}`);
    await assert.rejects(writeNoCloudSeed(join(dir, 'x.iso'), input, join(dir, 'no-genisoimage')), (e: unknown) => VmhubError.is(e) && e.code === 'PROVISION_FAILED' && /apt-get install -y genisoimage/.test(e.message));
  });
});
