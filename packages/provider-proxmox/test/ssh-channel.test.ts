/**
 * The SSH channel against a real sshd on loopback: argv with shell metacharacters round-trips,
 * stdin/stdout/stderr/exit codes, timeouts, cancellation (the remote process dies), caps, SFTP
 * byte-exactness and NOT_FOUND, tar unpack.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { abortExec, sleep, startSshd, type TestSshd } from '@vmhub/test-kit';
import { generateLeaseKeyPair } from '@vmhub/core';
import { SshChannel } from '../src/ssh-channel.ts';

describe('proxmox: ssh channel', () => {
  let sshd: TestSshd;
  let ch: SshChannel;
  let work: string;

  before(async () => {
    sshd = await startSshd();
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

  it('an abort signal kills the remote process and resolves promptly; an aborted one never starts it', async (t) => {
    // The sshd runs on this host, so the guest's process is a local pid the test can look at.
    const pidFile = join(work, `abort-${randomBytes(4).toString('hex')}.pid`);
    const ctl = new AbortController();
    const pending = ch.exec(['sh', '-c', 'echo $$ > "$1"; exec sleep 300', 'sh', pidFile], { timeoutMs: 60_000, signal: ctl.signal });
    await sleep(500);
    const abortedAt = Date.now();
    const { ms: resolvedMs } = await abortExec(ctl, pending, 2000);
    assert.equal(getEventListeners(ctl.signal, 'abort').length, 0, 'the abort listener is removed');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(pid > 1, `pid file holds ${pid}`);
    // Killed by the time exec resolves: gone, or a zombie waiting for init to reap the orphan.
    const state = (): string => { try { return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? '?'; } catch { return 'gone'; } };
    const atResolve = state();
    assert.ok(atResolve === 'gone' || atResolve === 'Z', `sleep 300 (pid ${pid}) is still running (state ${atResolve}) after the exec was cancelled`);
    const gone = (): boolean => { try { process.kill(pid, 0); return false; } catch (e) { return (e as NodeJS.ErrnoException).code === 'ESRCH'; } };
    const until = Date.now() + 5000;
    while (!gone() && Date.now() < until) await new Promise((res) => setTimeout(res, 20));
    t.diagnostic(`abort → exec resolved: ${resolvedMs} ms (process state then: ${atResolve}); abort → pid ${pid} reaped (ESRCH): ${Date.now() - abortedAt} ms`);
    assert.ok(gone(), `pid ${pid} still exists 5 s after the exec was cancelled`);

    const marker = join(work, `never-${randomBytes(4).toString('hex')}`);
    const pre = new AbortController();
    pre.abort(new Error('cancelled before start'));
    const t0 = Date.now();
    const r2 = await ch.exec(['sh', '-c', 'echo ran > "$1"', 'sh', marker], { signal: pre.signal });
    assert.deepEqual([r2.exit_code, r2.timed_out], [null, true]);
    assert.ok(Date.now() - t0 < 100, `an already-aborted exec took ${Date.now() - t0} ms`);
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(existsSync(marker), false, 'the command never ran');

    // A signal that never fires leaves no listener behind, and the channel still serves.
    const idle = new AbortController();
    const ok = await ch.exec(['echo', 'after'], { signal: idle.signal });
    assert.equal(ok.stdout.toString(), 'after\n');
    assert.equal(getEventListeners(idle.signal, 'abort').length, 0);
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

  it('file failures are typed in guest terms: a directory, names over 255 bytes, loops, paths through files, FIFOs', async () => {
    execFileSync('sh', ['-c', 'mkdir -p "$1/adir" && ln -s loop-b "$1/loop-a" && ln -s loop-a "$1/loop-b" && echo x > "$1/afile" && mkfifo "$1/fifo"', 'sh', work]);
    const typed = (code: string, re: RegExp) => (e: unknown): boolean => {
      assert.ok(VmhubError.is(e), String(e));
      assert.equal(e.code, code, e.message);
      assert.equal(e.retryable, false);
      assert.match(e.message, re);
      return true;
    };
    const data = Buffer.from('x');
    await assert.rejects(ch.putFile(join(work, 'adir'), data), typed('INVALID_REQUEST', /is a directory/));
    await assert.rejects(ch.getFile(join(work, 'adir')), typed('INVALID_REQUEST', /is a directory/));
    await assert.rejects(ch.putFile(join(work, 'a'.repeat(300)), data), typed('INVALID_REQUEST', /longer than 255 bytes/));
    await assert.rejects(ch.getFile(join(work, 'é'.repeat(150))), typed('INVALID_REQUEST', /longer than 255 bytes/));
    await assert.rejects(ch.putFile(join(work, 'loop-a'), data), typed('INVALID_REQUEST', /symbolic links/));
    await assert.rejects(ch.getFile(join(work, 'loop-b')), typed('INVALID_REQUEST', /symbolic links/));
    await assert.rejects(ch.putFile(join(work, 'afile/x.txt'), data), typed('INVALID_REQUEST', /not a directory/));
    await assert.rejects(ch.getFile(join(work, 'afile/x.txt')), typed('INVALID_REQUEST', /not a directory/));
    await assert.rejects(ch.getFile(join(work, 'fifo')), typed('INVALID_REQUEST', /not a regular file/));
    assert.equal(readFileSync(join(work, 'afile'), 'utf8'), 'x\n', 'nothing was written through a failure');
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

  it('pins the host key: reports the one it trusted first, refuses another one it was given', async () => {
    const keys = generateLeaseKeyPair('vmhub-pin');
    sshd.authorize(keys.publicKey);
    const seen: string[] = [];
    const first = new SshChannel({ host: sshd.host, port: sshd.port, user: sshd.user, privateKey: keys.privateKey, onHostKey: (fp) => seen.push(fp) });
    await first.open();
    await first.close();
    assert.equal(seen.length, 1);
    assert.match(seen[0]!, /^[A-Za-z0-9+/]{43}=$/, 'a base64 SHA-256');
    const same = new SshChannel({ host: sshd.host, port: sshd.port, user: sshd.user, privateKey: keys.privateKey, hostKey: seen[0], onHostKey: (fp) => seen.push(fp) });
    try {
      assert.equal((await same.exec(['echo', 'pinned'])).stdout.toString(), 'pinned\n');
    } finally {
      await same.close();
    }
    assert.equal(seen.length, 1, 'a channel given the pin does not report a new one');
    const other = new SshChannel({ host: sshd.host, port: sshd.port, user: sshd.user, privateKey: keys.privateKey, hostKey: 'A'.repeat(43) + '=' });
    await assert.rejects(other.exec(['true']), (e: unknown) => VmhubError.is(e) && /SSH to .* failed/.test(e.message));
    await other.close();
  });

  it('many concurrent execs share one connection', async () => {
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => ch.exec(['echo', String(i)])));
    assert.deepEqual(rs.map((r) => r.stdout.toString().trim()), Array.from({ length: 20 }, (_, i) => String(i)));
  });
});
