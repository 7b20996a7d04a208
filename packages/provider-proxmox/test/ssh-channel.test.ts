/**
 * The SSH channel against a real sshd on loopback: argv with shell metacharacters round-trips,
 * stdin/stdout/stderr/exit codes, timeouts, caps, SFTP byte-exactness and NOT_FOUND, tar unpack.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { startTestSshd, type TestSshd } from '@vmhub/pve-simulator';
import { generateLeaseKeyPair } from '../src/keys.ts';
import { SshChannel } from '../src/ssh-channel.ts';

describe('proxmox: ssh channel', () => {
  let sshd: TestSshd;
  let ch: SshChannel;
  let work: string;

  before(async () => {
    sshd = await startTestSshd();
    const keys = generateLeaseKeyPair('vmhub-test');
    sshd.authorize(keys.publicKey);
    work = mkdtempSync(join(tmpdir(), 'vmhub-ssh-work-'));
    ch = new SshChannel({ host: sshd.host, port: sshd.port, user: sshd.user, privateKey: keys.privateKey });
    await ch.open();
  });
  after(async () => {
    await ch?.close();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('argv with metacharacters arrives literally; stdin, stderr and exit code are separate', async () => {
    const argv = ["it's", '$(id)', '`id`', 'a;b', 'x|y', '&&', '"q"', '*', 'line\nbreak', '', '\\'];
    const r = await ch.exec(['printf', '%s\\0', ...argv]);
    assert.equal(r.exit_code, 0);
    assert.deepEqual(r.stdout.toString().split('\0').slice(0, -1), argv);
    const r2 = await ch.exec(['sh', '-c', 'cat; echo err >&2; exit 7'], { stdin: Buffer.from([0, 1, 2, 255]) });
    assert.deepEqual([...r2.stdout], [0, 1, 2, 255]);
    assert.equal(r2.stderr.toString(), 'err\n');
    assert.equal(r2.exit_code, 7);
    const r3 = await ch.exec(['pwd'], { cwd: work, env: { FOO: 'b a r' } });
    assert.equal(r3.stdout.toString().trim(), work);
    assert.ok(ch.home && ch.home.startsWith('/'));
  });

  it('times out (timed_out, exit_code null) and caps output', async () => {
    const t0 = Date.now();
    const r = await ch.exec(['sleep', '37.25'], { timeoutMs: 300 });
    assert.equal(r.timed_out, true);
    assert.equal(r.exit_code, null);
    assert.ok(Date.now() - t0 < 5000);
    // …and the guest does not keep running it.
    await new Promise((res) => setTimeout(res, 2500));
    assert.equal((await ch.exec(['pgrep', '-f', 'slee[p] 37[.]25'])).exit_code, 1, 'the timed-out process was killed in the guest');
    const big = await ch.exec(['head', '-c', '100000', '/dev/zero'], { maxOutputBytes: 1000 });
    assert.equal(big.stdout.length, 1000);
    assert.equal(big.truncated, true);
  });

  it('putFile/getFile are byte-exact for 1 MB; missing file is NOT_FOUND; over-cap is INVALID_REQUEST', async () => {
    const data = randomBytes(1024 * 1024);
    const path = join(work, 'deep/er/blob.bin');
    await ch.putFile(path, data, { mode: 0o640 });
    const back = await ch.getFile(path);
    assert.equal(createHash('sha256').update(back).digest('hex'), createHash('sha256').update(data).digest('hex'));
    assert.equal((await ch.exec(['stat', '-c', '%a', path])).stdout.toString().trim(), '640');
    await assert.rejects(ch.getFile(join(work, 'nope')), (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND');
    await assert.rejects(ch.getFile(path, { maxBytes: 10 }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
  });

  it('putArchive unpacks a tar stream into a new directory', async () => {
    const src = join(work, 'src');
    mkdirSync(join(src, 'sub'), { recursive: true });
    writeFileSync(join(src, 'sub', 'a.txt'), 'hello archive');
    const tar = execFileSync('tar', ['-c', '-C', src, '.']);
    const dest = join(work, 'unpacked dir');
    await ch.putArchive(dest, Readable.from([tar]));
    assert.equal((await ch.getFile(join(dest, 'sub/a.txt'))).toString(), 'hello archive');
  });

  it('reaches the guest through an SSH jump host', async () => {
    const jumpKeys = generateLeaseKeyPair('vmhub-jump');
    sshd.authorize(jumpKeys.publicKey);
    const keyFile = join(work, 'jump_key');
    writeFileSync(keyFile, jumpKeys.privateKey, { mode: 0o600 });
    const guestKeys = generateLeaseKeyPair('vmhub-guest');
    sshd.authorize(guestKeys.publicKey);
    // The same sshd plays the jump host and (via its TCP forwarding) the guest.
    const viaJump = new SshChannel({ host: '127.0.0.1', port: sshd.port, user: sshd.user, privateKey: guestKeys.privateKey, jump: { host: sshd.host, port: sshd.port, user: sshd.user, private_key_path: keyFile } });
    try {
      const r = await viaJump.exec(['echo', 'through the jump']);
      assert.equal(r.stdout.toString(), 'through the jump\n');
    } finally {
      await viaJump.close();
    }
  });

  it('many concurrent execs share one connection', async () => {
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => ch.exec(['echo', String(i)])));
    assert.deepEqual(rs.map((r) => r.stdout.toString().trim()), Array.from({ length: 20 }, (_, i) => String(i)));
  });
});
