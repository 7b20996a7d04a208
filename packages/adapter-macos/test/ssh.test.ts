/**
 * The SSH half against a real sshd on loopback, through the adapter's session as core drives it
 * (guest port 22 → the test sshd): argv round-trips literally, stdout/stderr/exit codes apart,
 * timeouts and cancellation kill the remote process (its pid is gone), SFTP files byte-exact with
 * modes, caps and typed errors, clone through tar on stdin, refused credentials and host keys.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTar } from '@vmhub/conformance';
import { VmhubError, type OpenSession } from '@vmhub/core';
import macos from '../src/index.ts';
import { callContext, leaseContext, type TestLease } from './context.ts';
import { startSshd, type TestSshd } from '@vmhub/test-kit';

const code = (c: string) => (e: unknown) => VmhubError.is(e) && e.code === c;
const gone = (pid: number) => { try { process.kill(pid, 0); return false; } catch (e) { return (e as NodeJS.ErrnoException).code === 'ESRCH'; } };
const state = (pid: number) => { try { return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] ?? '?'; } catch { return 'gone'; } };

describe('macos: ssh (exec, files, clone) against a real sshd', () => {
  let sshd: TestSshd;
  let lease: TestLease;
  let session: OpenSession;
  let work: string;

  before(async () => {
    sshd = await startSshd();
    process.env.VMHUB_TEST_MACOS_KEY = sshd.privateKey;
    work = mkdtempSync(join(tmpdir(), 'vmhub-macos-work-'));
    lease = leaseContext({ 22: sshd.port }, { ssh_user: sshd.user, ssh_key_env: 'VMHUB_TEST_MACOS_KEY', ssh_host_key_sha256: sshd.hostKeySha256 });
    session = await macos.create({}).open(lease);
  });
  after(async () => {
    await session?.dispose();
    await lease?.close();
    await sshd?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('argv with shell metacharacters arrives literally; stdin, stdout, stderr and exit code apart; cwd', async () => {
    const argv = ["it's", '$(id)', '`id`', 'a;b', 'x|y', '&&', '"q"', '*', 'line\nbreak', '', '\\', 'ünï ✓'];
    const r = await session.exec!(callContext(lease), { argv: ['printf', '%s\\0', ...argv], timeout_ms: 10_000, max_output_bytes: 1 << 20 });
    assert.equal(r.exit_code, 0);
    assert.deepEqual(r.stdout.toString().split('\0').slice(0, -1), argv);
    assert.equal(r.stderr.length, 0, 'the pid line is not part of stderr');
    const r2 = await session.exec!(callContext(lease), { argv: ['sh', '-c', 'cat; echo err >&2; exit 7'], stdin: 'in put\n', timeout_ms: 10_000, max_output_bytes: 1 << 20 });
    assert.deepEqual([r2.stdout.toString(), r2.stderr.toString(), r2.exit_code, r2.timed_out], ['in put\n', 'err\n', 7, false]);
    const r3 = await session.exec!(callContext(lease), { argv: ['pwd'], cwd: work, timeout_ms: 10_000, max_output_bytes: 1 << 20 });
    assert.equal(r3.stdout.toString().trim(), work);
    // Exit statuses arrive on ssh2's 'exit' and 'close' events in either order: many in a row.
    // One after another: run at once, the host's login shell starts 12 times together, and this
    // host's root ~/.bashrc (read by bash under sshd) runs `pyenv init`, whose rehash lock made
    // some of them wait past the 10 s timeout on a loaded machine (CI h12).
    const codes = [];
    for (let i = 0; i < 12; i++) codes.push(await session.exec!(callContext(lease), { argv: ['sh', '-c', `exit ${i}`], timeout_ms: 10_000, max_output_bytes: 100 }));
    assert.deepEqual(codes.map((c) => c.exit_code), Array.from({ length: 12 }, (_, i) => i));
    const big = await session.exec!(callContext(lease), { argv: ['head', '-c', '100000', '/dev/zero'], timeout_ms: 10_000, max_output_bytes: 1000 });
    assert.deepEqual([big.stdout.length, big.truncated], [1000, true]);
  });

  it('a timeout kills the remote process: exit_code null, timed_out, and its pid is gone', async () => {
    const pidFile = join(work, 'timeout.pid');
    const r = await session.exec!(callContext(lease), { argv: ['sh', '-c', 'echo $$ > "$1"; exec sleep 300', 'sh', pidFile], timeout_ms: 500, max_output_bytes: 1 << 20 });
    assert.deepEqual([r.exit_code, r.timed_out], [null, true]);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(['gone', 'Z'].includes(state(pid)), `sleep 300 (pid ${pid}) still runs (state ${state(pid)}) after the timeout`);
    const end = Date.now() + 5000;
    while (!gone(pid) && Date.now() < end) await new Promise((res) => setTimeout(res, 20));
    assert.ok(gone(pid), `pid ${pid} still exists`);
  });

  it('ctx.signal kills the remote process and its children; an aborted call never starts', async () => {
    const pidFile = join(work, 'abort.pid');
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('cancelled')), 600);
    // A child in the background too: the whole process group must go.
    const r = await session.exec!(callContext(lease, ctl.signal), { argv: ['sh', '-c', 'sleep 301 & echo $$ $! > "$1"; wait', 'sh', pidFile], timeout_ms: 60_000, max_output_bytes: 1 << 20 });
    assert.deepEqual([r.exit_code, r.timed_out], [null, true]);
    const pids = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
    const end = Date.now() + 5000;
    while (!pids.every(gone) && Date.now() < end) await new Promise((res) => setTimeout(res, 20));
    for (const pid of pids) assert.ok(gone(pid), `pid ${pid} survived the cancelled exec (state ${state(pid)})`);

    assert.equal(getEventListeners(ctl.signal, 'abort').length, 0, 'no abort listener is left on the call\'s signal');

    const marker = join(work, 'never');
    const pre = new AbortController();
    pre.abort();
    const r2 = await session.exec!(callContext(lease, pre.signal), { argv: ['touch', marker], timeout_ms: 10_000, max_output_bytes: 1 << 20 });
    assert.deepEqual([r2.exit_code, r2.timed_out], [null, true]);
    await new Promise((res) => setTimeout(res, 200));
    assert.equal(existsSync(marker), false);
  });

  it('put/get file over SFTP: byte-exact, mode applied, parents made; NOT_FOUND, caps, directories', async () => {
    const data = randomBytes(1024 * 1024 + 17);
    const path = join(work, 'deep/er/blob.bin');
    await session.putFile!(callContext(lease), { path, data, mode: 0o640 });
    assert.equal((statSync(path).mode & 0o777).toString(8), '640');
    const back = await session.getFile!(callContext(lease), { path, max_bytes: 8 << 20 });
    assert.equal(createHash('sha256').update(back).digest('hex'), createHash('sha256').update(data).digest('hex'));
    await session.putFile!(callContext(lease), { path, data: Buffer.from('short'), mode: 0o755 });
    assert.equal(readFileSync(path, 'utf8'), 'short', 'an overwrite truncates');
    assert.equal((statSync(path).mode & 0o777).toString(8), '755');
    await assert.rejects(session.getFile!(callContext(lease), { path: join(work, 'nope'), max_bytes: 100 }), code('NOT_FOUND'));
    await assert.rejects(session.getFile!(callContext(lease), { path, max_bytes: 2 }), code('INVALID_REQUEST'));
    await assert.rejects(session.getFile!(callContext(lease), { path: work, max_bytes: 100 }), code('INVALID_REQUEST'));
    await assert.rejects(session.putFile!(callContext(lease), { path: join(path, 'under-a-file'), data: Buffer.from('x') }), code('INVALID_REQUEST'));
  });

  it('clone_repo unpacks the host-made tar through tar -x on stdin', async () => {
    const dest = join(work, 'repo');
    const tar = makeTar([
      { path: 'README.md', data: 'hello clone\n' },
      { path: '.git', type: 'dir' },
      { path: '.git/HEAD', data: 'ref: refs/heads/main\n' },
      { path: 'src/ünï.txt', data: 'ü\n' },
    ]);
    const { Readable } = await import('node:stream');
    await session.cloneRepo!(callContext(lease), { dest, archive: Readable.from([tar]) });
    assert.equal(readFileSync(join(dest, 'README.md'), 'utf8'), 'hello clone\n');
    assert.equal(readFileSync(join(dest, '.git/HEAD'), 'utf8'), 'ref: refs/heads/main\n');
    assert.equal(readFileSync(join(dest, 'src/ünï.txt'), 'utf8'), 'ü\n');
  });

  it('dispose kills what still runs in the guest, closes the SSH connection; later calls are refused', async () => {
    const s = await macos.create({}).open(lease);
    await s.exec!(callContext(lease), { argv: ['true'], timeout_ms: 5000, max_output_bytes: 100 });
    const pidFile = join(work, 'dispose.pid');
    const running = s.exec!(callContext(lease), { argv: ['sh', '-c', 'echo $$ > "$1"; exec sleep 303', 'sh', pidFile], timeout_ms: 60_000, max_output_bytes: 100 });
    const t0 = Date.now();
    while (!existsSync(pidFile) && Date.now() - t0 < 5000) await new Promise((res) => setTimeout(res, 20));
    const before = lease.ports.open;
    await s.dispose();
    assert.deepEqual([(await running).exit_code, (await running).timed_out], [null, true]);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const end = Date.now() + 5000;
    while (!gone(pid) && Date.now() < end) await new Promise((res) => setTimeout(res, 20));
    assert.ok(gone(pid), `sleep 303 (pid ${pid}) outlived the session`);
    await new Promise((res) => setTimeout(res, 200));
    assert.ok(lease.ports.open < before, `guest streams open: ${before} before dispose, ${lease.ports.open} after`);
    await assert.rejects(s.exec!(callContext(lease), { argv: ['true'], timeout_ms: 5000, max_output_bytes: 100 }), code('LEASE_EXPIRED'));
  });

  it('a wrong key, a missing env var and a changed host key are typed errors naming the fix', async () => {
    const other = leaseContext({ 22: sshd.port }, { ssh_user: sshd.user, ssh_key_env: 'VMHUB_TEST_MACOS_NO_SUCH_KEY' });
    const s1 = await macos.create({}).open(other);
    await assert.rejects(s1.exec!(callContext(other), { argv: ['true'], timeout_ms: 5000, max_output_bytes: 100 }), (e: unknown) => code('CAPABILITY_UNAVAILABLE')(e) && /VMHUB_TEST_MACOS_NO_SUCH_KEY/.test((e as Error).message));
    const { execFileSync } = await import('node:child_process');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(work, 'wrong_key')]);
    process.env.VMHUB_TEST_MACOS_WRONG_KEY = readFileSync(join(work, 'wrong_key'), 'utf8');
    const wrong = leaseContext({ 22: sshd.port }, { ssh_user: sshd.user, ssh_key_env: 'VMHUB_TEST_MACOS_WRONG_KEY' });
    const s2 = await macos.create({}).open(wrong);
    await assert.rejects(s2.exec!(callContext(wrong), { argv: ['true'], timeout_ms: 5000, max_output_bytes: 100 }), (e: unknown) => code('CAPABILITY_UNAVAILABLE')(e) && /authorized_keys/.test((e as Error).message));
    const pinned = leaseContext({ 22: sshd.port }, { ssh_user: sshd.user, ssh_key_env: 'VMHUB_TEST_MACOS_KEY', ssh_host_key_sha256: 'A'.repeat(43) });
    const s3 = await macos.create({}).open(pinned);
    await assert.rejects(s3.exec!(callContext(pinned), { argv: ['true'], timeout_ms: 5000, max_output_bytes: 100 }), code('POLICY_DENIED'));
    for (const [s, l] of [[s1, other], [s2, wrong], [s3, pinned]] as const) { await s.dispose(); await l.close(); }
  });
});
