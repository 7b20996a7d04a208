import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_DIRS } from './guest-fs.ts';
import { guestShellExec } from './guest-shell.ts';

/** One guest's file system, shared by the commands a test runs in it. */
function guest() {
  const fs = { files: new Map<string, Buffer>([['/etc/shadow', Buffer.from('root:*:1')], ['/root/secret', Buffer.from('s')]]), owners: new Map([['/home/vmhub', 'vmhub']]), dirs: new Set([...BASE_DIRS, '/home/vmhub']) };
  const run = (argv: string[], input?: string) => {
    const r = guestShellExec({ vmid: 100, argv, input, ...fs });
    return { code: r.exitcode, out: Buffer.from(r.stdout ?? '').toString(), err: String(r.stderr ?? '') };
  };
  const as = (user: string, argv: string[], input?: string) => run(['runuser', '-u', user, '--', ...argv], input);
  return { ...fs, run, as };
}

describe('pve-simulator: default guest users and rights', () => {
  it('runuser runs as the user: what it writes is the user\'s, whoami says so, and only root may runuser', () => {
    const g = guest();
    assert.equal(g.as('vmhub', ['whoami']).out, 'vmhub\n');
    assert.equal(g.as('vmhub', ['sh', '-c', 'mkdir -p -- "$1" && cat > "$2"', 'sh', '/home/vmhub/a/b', '/home/vmhub/a/b/f.txt'], 'data').code, 0);
    assert.equal(g.files.get('/home/vmhub/a/b/f.txt')!.toString(), 'data');
    assert.deepEqual(['/home/vmhub/a', '/home/vmhub/a/b', '/home/vmhub/a/b/f.txt'].map((p) => g.owners.get(p)), ['vmhub', 'vmhub', 'vmhub']);
    assert.match(g.as('vmhub', ['runuser', '-u', 'root', '--', 'true']).err, /may not be used by non-root users/);
    assert.equal(g.run(['sh', '-c', 'echo x > /home/vmhub/by-root']).code, 0);
    assert.equal(g.owners.get('/home/vmhub/by-root'), 'root');
  });

  it('root-only paths and other users\' files are Permission denied for the user, as coreutils say it', () => {
    const g = guest();
    const w = g.as('vmhub', ['sh', '-c', 'cat > "$1"', 'sh', '/root/x']);
    assert.deepEqual([w.code, w.err], [2, 'sh: 1: cannot create /root/x: Permission denied\n']);
    assert.match(g.as('vmhub', ['cat', '/etc/shadow']).err, /cat: '\/etc\/shadow': Permission denied/);
    assert.equal(g.as('vmhub', ['stat', '-c', '%F %s', '/etc/shadow']).out, 'regular file 8\n', 'a root-only file can be stat\'ed');
    assert.match(g.as('vmhub', ['stat', '-c', '%s', '/root/secret']).err, /cannot statx '\/root\/secret': Permission denied/, 'inside a root-only directory nothing can');
    assert.match(g.as('vmhub', ['base64', '-w', '0', '--', '/root/secret']).err, /Permission denied/);
    assert.match(g.as('vmhub', ['mkdir', '-p', '--', '/root/d/e']).err, /mkdir: cannot create directory '\/root\/d': Permission denied/);
    assert.match(g.as('vmhub', ['mkdir', '-p', '--', '/srv/mine']).err, /Permission denied/, 'a root-owned directory');
    g.run(['sh', '-c', 'echo x > /home/vmhub/root-file']);
    assert.match(g.as('vmhub', ['sh', '-c', 'echo y > /home/vmhub/root-file']).err, /cannot create \/home\/vmhub\/root-file: Permission denied/);
    assert.match(g.as('vmhub', ['chmod', '600', '/home/vmhub/root-file']).err, /Operation not permitted/);
    assert.equal(g.as('vmhub', ['sh', '-c', 'echo t > /tmp/t']).code, 0, '/tmp is world-writable');
    assert.equal(g.run(['cat', '/etc/shadow']).out, 'root:*:1', 'root reads it');
  });

  it('directories, names over 255 bytes and paths through files fail like the kernel', () => {
    const g = guest();
    assert.match(g.as('vmhub', ['sh', '-c', 'cat > "$1"', 'sh', '/home/vmhub']).err, /cannot create \/home\/vmhub: Is a directory/);
    assert.match(g.run(['cat', '/tmp']).err, /cat: '\/tmp': Is a directory/);
    assert.equal(g.run(['stat', '-L', '-c', '%F %s', '--', '/home/vmhub']).out, 'directory 4096\n');
    const long = `/home/vmhub/${'a'.repeat(256)}`;
    assert.match(g.as('vmhub', ['sh', '-c', 'cat > "$1"', 'sh', long]).err, /File name too long/);
    assert.match(g.as('vmhub', ['mkdir', '-p', '--', `${long}/x`]).err, /File name too long/);
    g.as('vmhub', ['sh', '-c', 'echo f > /home/vmhub/file']);
    assert.match(g.as('vmhub', ['mkdir', '-p', '--', '/home/vmhub/file/x']).err, /Not a directory|File exists/);
    assert.match(g.as('vmhub', ['cat', '/home/vmhub/file/x']).err, /Not a directory/);
    assert.equal(g.run(['test', '-d', '/home/vmhub']).code, 0);
    assert.equal(g.run(['test', '-d', '/home/vmhub/file']).code, 1);
  });
});
