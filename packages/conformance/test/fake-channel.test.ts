// The fake channel keeps the GuestChannel rules: sandboxed paths, caps, NOT_FOUND, safe archives,
// and an exec that never starts a host process.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { VmhubError, type GuestChannel } from '@vmhub/core';
import { makeTar } from '../src/index.ts';
import { FakeChannel, fakeTarget } from '../src/fake/index.ts';
import type { AdapterTarget } from '../src/types.ts';

const code = (c: string) => (e: unknown) => VmhubError.is(e) && e.code === c;

describe('fake: channel', () => {
  let target: AdapterTarget;
  let ch: GuestChannel;
  let root: string;
  let outside: string;
  before(async () => {
    target = await fakeTarget();
    ch = await target.context.channel();
    root = (ch as FakeChannel).root;
    outside = await mkdtemp(join(tmpdir(), 'vmhub-outside-'));
  });
  after(async () => { await target.dispose(); await rm(outside, { recursive: true, force: true }); });

  it('relative paths land in /home/user; files are byte-exact with mode', async () => {
    await ch.putFile('notes/a.txt', Buffer.from('hello'), { mode: 0o600 });
    assert.equal((await readFile(join(root, 'home/user/notes/a.txt'))).toString(), 'hello');
    assert.equal((await stat(join(root, 'home/user/notes/a.txt'))).mode & 0o777, 0o600);
    assert.equal((await ch.getFile('/home/user/notes/a.txt')).toString(), 'hello');
  });

  it('NOT_FOUND, size caps, directories and ".." are refused', async () => {
    await assert.rejects(ch.getFile('/nope'), code('NOT_FOUND'));
    await assert.rejects(ch.getFile('notes/a.txt', { maxBytes: 2 }), code('INVALID_REQUEST'));
    await assert.rejects(ch.getFile('/home'), code('INVALID_REQUEST'));
    await assert.rejects(ch.putFile('/home/user/../../etc/x', Buffer.from('x')), code('INVALID_REQUEST'));
  });

  it('a symlink leading out of the sandbox is not followed', async () => {
    await symlink(outside, join(root, 'home/user/escape'));
    await assert.rejects(ch.putFile('escape/pwned', Buffer.from('x')), code('INVALID_REQUEST'));
    await assert.rejects(stat(join(outside, 'pwned')));
  });

  it('putArchive extracts a tree; absolute, "..", and escaping symlink entries are refused', async () => {
    await ch.putArchive!('/srv/repo', Readable.from([makeTar([{ path: 'src', type: 'dir' }, { path: 'src/x.txt', data: 'x' }])]));
    assert.equal((await ch.getFile('/srv/repo/src/x.txt')).toString(), 'x');
    await assert.rejects(ch.putArchive!('/srv/bad', Readable.from([makeTar([{ path: '../evil.txt', data: 'x' }])])), code('INVALID_REQUEST'));
    await assert.rejects(ch.putArchive!('/srv/bad', Readable.from([makeTar([{ path: '/abs.txt', data: 'x' }])])), code('INVALID_REQUEST'));
    await assert.rejects(ch.putArchive!('/srv/bad', Readable.from([makeTar([{ path: 'link', type: 'symlink', target: '/etc' }])])), code('INVALID_REQUEST'));
    await assert.rejects(ch.putArchive!('/srv/bad', Readable.from([makeTar([{ path: 'link', type: 'symlink', target: '../../..' }])])), code('INVALID_REQUEST'));
    await ch.putArchive!('/srv/ok', Readable.from([makeTar([{ path: 'a.txt', data: 'a' }, { path: 'b.txt', type: 'symlink', target: 'a.txt' }])]));
    assert.equal((await ch.getFile('/srv/ok/b.txt')).toString(), 'a');
    await assert.rejects(stat(join(root, 'srv/evil.txt')));
  });

  it('exec built-ins, exit codes, stdin, cwd, output caps', async () => {
    const run = (argv: string[], o = {}) => ch.exec(argv, o);
    assert.equal((await run(['echo', '-n', 'a', 'b'])).stdout.toString(), 'a b');
    assert.equal((await run(['/bin/cat'], { stdin: 'in' })).stdout.toString(), 'in');
    assert.equal((await run(['cat', 'notes/a.txt'])).stdout.toString(), 'hello');
    assert.equal((await run(['pwd'], { cwd: '/srv/repo' })).stdout.toString(), '/srv/repo\n');
    assert.equal((await run(['pwd'], { cwd: '/missing' })).exit_code, 1);
    assert.equal((await run(['false'])).exit_code, 1);
    const f = await run(['fail', '7', 'broken', 'pipe']);
    assert.deepEqual([f.exit_code, f.stderr.toString()], [7, 'broken pipe\n']);
    const big = await run(['echo', 'x'.repeat(100)], { maxOutputBytes: 10 });
    assert.deepEqual([big.stdout.length, big.truncated], [10, true]);
    assert.match((await run(['env'], { env: { FOO: 'bar' } })).stdout.toString(), /^FOO=bar$/m);
  });

  it('sh -c: sequences, >&2 and exit; unsupported syntax exits 2; unknown commands 127', async () => {
    const r = await ch.exec(['sh', '-c', "echo 'one two'; echo err >&2; exit 4; echo never"]);
    assert.deepEqual([r.exit_code, r.stdout.toString(), r.stderr.toString()], [4, 'one two\n', 'err\n']);
    assert.equal((await ch.exec(['sh', '-c', 'cat /etc/passwd | head'])).exit_code, 2);
    assert.equal((await ch.exec(['sh', '-c', 'echo $HOME'])).exit_code, 2);
    const nf = await ch.exec(['rm', '-rf', '/']);
    assert.deepEqual([nf.exit_code, nf.stderr.toString()], [127, 'rm: command not found\n']);
  });

  it('sleep honours the timeout', async () => {
    const started = Date.now();
    const r = await ch.exec(['sleep', '10'], { timeoutMs: 200 });
    assert.deepEqual([r.exit_code, r.timed_out], [null, true]);
    assert.ok(Date.now() - started < 2000);
    assert.equal((await ch.exec(['sleep', '0.05'])).exit_code, 0);
  });

  it('a closed channel refuses use; a destroyed machine has no channel', async () => {
    const other = await fakeTarget();
    const c = await other.context.channel();
    await c.close();
    await assert.rejects(c.exec(['true']), code('INVALID_REQUEST'));
    await other.dispose();
    await assert.rejects(c.getFile('/x'));
  });
});
