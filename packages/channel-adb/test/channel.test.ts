/**
 * The adb channel against the real adbd (bookworm-backports) and a real adb server, the device
 * reached through a GuestPorts forward exactly as the docker provider does it. adbd runs its
 * commands on this host, so effects (files, killed processes) are checked here directly.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { GuestPorts } from '@vmhub/core';
import { openAdbChannel, openAdbChannelOver, type AdbChannel } from '../src/index.ts';
import { adbMissing, startAdbd, startAdbServer, until, type Adbd, type AdbServer } from '@vmhub/test-kit';
import { rejectsWith } from '@vmhub/test-kit/errors';
import { processesWith } from './adbd.ts';

const skip = adbMissing();

describe('channel-adb against the real adbd', { skip }, () => {
  let adbd: Adbd;
  let server: AdbServer;
  let ports: GuestPorts;
  let ch: AdbChannel;
  let home: string;
  let closed = 0;

  before(async () => {
    adbd = await startAdbd();
    server = await startAdbServer();
    home = mkdtempSync(join(tmpdir(), 'vmhub-test-adb-home-'));
    ports = new GuestPorts(async () => connect({ host: '127.0.0.1', port: adbd.port }));
    const address = await ports.forward(5555);
    ch = await openAdbChannel({ address, adb: { port: server.port }, home, maxFileBytes: 32 * 1024 * 1024, onClose: async () => { closed++; await ports.close(); } });
  });

  after(async () => {
    await ch?.close();
    server?.stop();
    await adbd?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('exit codes and separate stderr', async () => {
    const r = await ch.exec(['sh', '-c', 'echo out; echo err >&2; exit 7']);
    assert.equal(r.exit_code, 7);
    assert.equal(r.stdout.toString(), 'out\n');
    assert.equal(r.stderr.toString(), 'err\n');
    assert.equal(r.timed_out, false);
    assert.equal((await ch.exec(['true'])).exit_code, 0);
    assert.equal((await ch.exec(['no-such-program-vmhub'])).exit_code, 127);
    assert.equal(ch.user, 'root');
  });

  it('argv arrives literally: quotes, $, ;, newlines, UTF-8', async () => {
    const args = ["it's", '$HOME', 'a;b && c', 'line1\nline2', 'ünïcødé ✓ 日本', '', '`id`', '"q"'];
    const r = await ch.exec(['printf', '%s\\0', ...args]);
    assert.equal(r.exit_code, 0, r.stderr.toString());
    assert.deepEqual(r.stdout.toString('utf8').split('\0').slice(0, -1), args);
  });

  it('stdin is delivered byte-exact and closed', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 * 64 }, (_, i) => i % 256));
    const r = await ch.exec(['cat'], { stdin: bytes });
    assert.ok(r.stdout.equals(bytes));
    assert.equal((await ch.exec(['wc', '-c'], { stdin: 'héllo' })).stdout.toString().trim(), '6');
    // No stdin given: EOF at once, so cat ends.
    assert.equal((await ch.exec(['cat'])).exit_code, 0);
  });

  it('binary stdout is byte-exact (3 MiB of random bytes, CR LF included)', async () => {
    const file = join(home, 'rand.bin');
    const data = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n\r\n\n\r'), randomBytes(3 * 1024 * 1024)]);
    writeFileSync(file, data);
    const r = await ch.exec(['cat', file], { maxOutputBytes: 8 * 1024 * 1024 });
    assert.equal(r.stdout.length, data.length);
    assert.ok(r.stdout.equals(data));
    assert.equal(r.truncated, false);
  });

  it('cwd (default: home) and env', async () => {
    assert.equal((await ch.exec(['pwd'])).stdout.toString().trim(), home);
    assert.equal((await ch.exec(['pwd'], { cwd: '/etc' })).stdout.toString().trim(), '/etc');
    const r = await ch.exec(['sh', '-c', 'printf %s "$VMHUB_X"'], { env: { VMHUB_X: "a'b $c" } });
    assert.equal(r.stdout.toString(), "a'b $c");
    assert.notEqual((await ch.exec(['pwd'], { cwd: '/no/such/dir' })).exit_code, 0);
    await rejectsWith(ch.exec(['true'], { env: { 'BAD-NAME': 'x' } }), 'INVALID_REQUEST');
  });

  it('output caps: truncated, the rest dropped', async () => {
    const r = await ch.exec(['sh', '-c', 'head -c 100000 /dev/zero; head -c 5000 /dev/zero >&2'], { maxOutputBytes: 1000 });
    assert.equal(r.exit_code, 0);
    assert.equal(r.stdout.length, 1000);
    assert.equal(r.stderr.length, 1000);
    assert.equal(r.truncated, true);
  });

  it('timeout kills the process group on the device and resolves promptly', async () => {
    const tag = `vmhub-t-${process.pid}-1`;
    const r = await ch.exec(['sh', '-c', `sleep 301 & sh -c 'sleep 302; : ${tag}'; wait`], { timeoutMs: 600 });
    assert.equal(r.exit_code, null);
    assert.equal(r.timed_out, true);
    await until(() => processesWith(tag).length === 0, `the processes tagged ${tag} to end`, 5000, 50);
    const left = await until(() => processesWith("sleep 301").length === 0, 'the background sleep 301 to end', 5000, 50).catch(() => false);
    assert.ok(left, `the background child survived: ${execFileSync("ps", ["-eo", "pid,ppid,pgid,etimes,args"], { encoding: "utf8" }).split("\n").filter((l) => /sleep 30/.test(l)).join("; ")} r=${JSON.stringify(r)}`);
  });

  it('abort signal kills on the device; an aborted signal does not start the command', async () => {
    const tag = `vmhub-t-${process.pid}-2`;
    const ac = new AbortController();
    const running = ch.exec(['sh', '-c', `sleep 303; : ${tag}`], { signal: ac.signal, timeoutMs: 60_000 });
    await until(() => processesWith(tag).length > 0, `the command tagged ${tag} to start`, 5000, 50);
    ac.abort();
    const r = await running;
    assert.equal(r.timed_out, true);
    assert.equal(r.exit_code, null);
    await until(() => processesWith(tag).length === 0, `the command tagged ${tag} to end after the abort`, 5000, 50);
    const marker = join(home, 'never');
    const pre = await ch.exec(['touch', marker], { signal: AbortSignal.abort() });
    assert.equal(pre.timed_out, true);
    assert.throws(() => statSync(marker));
  });

  it('an abort at any moment of the start (dial, handshake, running) still kills and resolves', { timeout: 120_000 }, async () => {
    for (let i = 0; i < 12; i++) {
      const tag = `vmhub-t-${process.pid}-race${i}`;
      const ac = new AbortController();
      const running = ch.exec(['sh', '-c', `sleep 304; : ${tag}`], { signal: ac.signal, timeoutMs: 60_000 });
      setTimeout(() => ac.abort(), i * 3);
      const r = await running;
      assert.equal(r.timed_out, true, `round ${i}`);
      await until(() => processesWith(tag).length === 0, `round ${i}: the command to end after the abort`, 5000, 50);
    }
  });

  it('putFile/getFile: bytes and modes, parents created', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const path = join(home, 'deep/er/file.bin');
    await ch.putFile(path, data, { mode: 0o750 });
    assert.ok(readFileSync(path).equals(data));
    assert.equal(statSync(path).mode & 0o777, 0o750);
    assert.ok((await ch.getFile(path)).equals(data));
    await ch.putFile(join(home, 'plain.txt'), Buffer.from('hi\n'));
    assert.equal(statSync(join(home, 'plain.txt')).mode & 0o777, 0o644);
    await ch.putFile(join(home, 'empty'), Buffer.alloc(0));
    assert.equal((await ch.getFile(join(home, 'empty'))).length, 0);
  });

  it('a large file both ways (24 MiB)', async () => {
    const data = randomBytes(24 * 1024 * 1024);
    const path = join(home, 'large.bin');
    await ch.putFile(path, data);
    assert.ok(readFileSync(path).equals(data));
    assert.ok((await ch.getFile(path)).equals(data));
  });

  it('typed file errors: NOT_FOUND, caps, directories, a file as parent', async () => {
    await rejectsWith(ch.getFile(join(home, 'missing.txt')), 'NOT_FOUND', /no such file/);
    writeFileSync(join(home, 'ten.bin'), Buffer.alloc(10));
    await rejectsWith(ch.getFile(join(home, 'ten.bin'), { maxBytes: 5 }), 'INVALID_REQUEST', /10 bytes, over the cap of 5 bytes/);
    await rejectsWith(ch.putFile(join(home, 'huge'), Buffer.alloc(32 * 1024 * 1024 + 1)), 'INVALID_REQUEST', /over the cap of 33554432 bytes/);
    mkdirSync(join(home, 'adir'), { recursive: true });
    await rejectsWith(ch.getFile(join(home, 'adir')), 'INVALID_REQUEST', /directory/);
    await rejectsWith(ch.putFile(join(home, 'adir'), Buffer.from('x')), 'INVALID_REQUEST', /directory/);
    await rejectsWith(ch.putFile(join(home, 'ten.bin', 'child'), Buffer.from('x')), 'INVALID_REQUEST', /not a directory/);
    await rejectsWith(ch.exec(['true'], { user: 'nobody' }), 'INVALID_REQUEST', /as "root"/);
  });

  it('putArchive unpacks a tar stream with the device tar', async () => {
    const src = mkdtempSync(join(tmpdir(), 'vmhub-test-adb-tar-'));
    mkdirSync(join(src, 'repo/.git'), { recursive: true });
    writeFileSync(join(src, 'repo/README.md'), 'hello\n');
    writeFileSync(join(src, 'repo/.git/HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(src, 'repo/run.sh'), '#!/bin/sh\n');
    chmodSync(join(src, 'repo/run.sh'), 0o755);
    const tar = execFileSync('tar', ['-c', '-f', '-', '-C', join(src, 'repo'), '.']);
    const dest = join(home, 'clone/here');
    await ch.putArchive(dest, Readable.from([tar]));
    assert.equal(readFileSync(join(dest, 'README.md'), 'utf8'), 'hello\n');
    assert.equal(readFileSync(join(dest, '.git/HEAD'), 'utf8'), 'ref: refs/heads/main\n');
    assert.equal(statSync(join(dest, 'run.sh')).mode & 0o111, 0o111);
    await rejectsWith(ch.putArchive(join(home, 'ten.bin'), Readable.from([tar])), 'INVALID_REQUEST');
    // A tar that stops early (here: it never starts) leaves a large stream unread: no hang.
    const big = Readable.from((function* () { for (let i = 0; i < 160; i++) yield randomBytes(64 * 1024); })());
    await rejectsWith(ch.putArchive(join(home, 'ten.bin', 'sub'), big), 'INVALID_REQUEST');
    assert.ok(big.destroyed);
    rmSync(src, { recursive: true, force: true });
  });

  it('close is idempotent: detaches the device, calls onClose once, refuses later calls', async () => {
    const listed = (): string => execFileSync('adb', ['-P', String(server.port), 'devices'], { encoding: 'utf8' });
    assert.match(listed(), new RegExp(ch.serial.replace(/\./g, '\\.')));
    await Promise.all([ch.close(), ch.close()]);
    await ch.close();
    assert.equal(closed, 1);
    assert.doesNotMatch(listed(), new RegExp(`${ch.serial.replace(/\./g, '\\.')}\\s+device`));
    await rejectsWith(ch.exec(['true']), 'LEASE_EXPIRED');
  });
});

describe('channel-adb: openAdbChannelOver (a provider\'s guest-port opener)', { skip }, () => {
  it('the adb server reaches the device through a forward over the opener; closing the channel closes every stream it opened', async () => {
    const adbd = await startAdbd();
    const server = await startAdbServer();
    const streams: Socket[] = [];
    try {
      const ch = await openAdbChannelOver(async (port) => {
        assert.equal(port, 5555, 'the opener is asked for the guest port');
        const s = connect({ host: '127.0.0.1', port: adbd.port });
        streams.push(s);
        return s;
      }, 5555, { adb: { port: server.port }, home: tmpdir() });
      const r = await ch.exec(['sh', '-c', 'echo through-the-opener']);
      assert.equal(r.stdout.toString(), 'through-the-opener\n');
      assert.ok(streams.length >= 1, 'the device was reached through the opener');
      await ch.close();
      await until(() => streams.every((s) => s.destroyed), 'every stream to the device to close with the channel', 5000, 50);
    } finally {
      server.stop();
      await adbd.stop();
    }
  });
});

describe('channel-adb: a device that goes away mid-call', { skip }, () => {
  it('exec running when adbd dies → INTERNAL (retryable, reason device_lost); later calls the same', async () => {
    const adbd = await startAdbd();
    const server = await startAdbServer();
    try {
      const ch = await openAdbChannel({ address: { host: '127.0.0.1', port: adbd.port }, adb: { port: server.port }, home: '/' });
      const tag = `vmhub-t-${process.pid}-lost`;
      const running = ch.exec(['sh', '-c', `sleep 60; : ${tag}`], { timeoutMs: 60_000 });
      running.catch(() => undefined); // it rejects while adbd is being stopped: handled below
      await new Promise((r) => setTimeout(r, 300));
      await adbd.stop();
      const err = await rejectsWith(running, 'INTERNAL', /went away/);
      assert.equal(err.retryable, true);
      assert.equal(err.details?.reason, 'device_lost');
      const again = await rejectsWith(ch.exec(['true']), 'INTERNAL', /went away/);
      assert.equal(again.details?.reason, 'device_lost');
      await rejectsWith(ch.getFile('/etc/hostname'), 'INTERNAL', /went away/);
      await ch.close();
      // adbd's children outlive it (their own session): end ours.
      for (const pid of processesWith(tag)) process.kill(pid, 'SIGKILL');
    } finally {
      server.stop();
      await adbd.stop();
    }
  });
});
