// `vmhub-server leases ssh` on a real Docker debian-x11 lease, through the BUILT server and the
// built CLI, as a person at a shell runs it: vm_lease_status gives the command (access.ssh); a
// command's output and exit code come back; an interactive shell runs under a pseudo-terminal
// (`script`), with the terminal's size sent at start and again when it changes (SIGWINCH); the host
// key is pinned at the first connection and a different one later is refused; another principal is
// refused; the session ends when the lease does; after release the command fails with one line
// naming the state, and the lease's private key file (0600) is gone.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { until } from '@vmhub/test-kit';
import { BIN, connect, leaseReady, machineBox, runBin, type Session } from './harness.ts';

const run = promisify(execFile);
const box = machineBox('lssh', 'ls');
let s: Session;
let lease = '';
let identity = '';
let keyFile = '';

const env = (): Record<string, string> => ({ PATH: process.env.PATH ?? '', HOME: box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'warn' });
const ssh = (...args: string[]) => runBin(box, ['leases', 'ssh', lease, ...args], {}, 60_000);

/**
 * The CLI under a pseudo-terminal (`script`), its size set first; `pty` is where that terminal's
 * path is written. `send(text)` types, `output()` is everything shown, `done` its exit code.
 */
function underPty(pty: string, args: string[] = []) {
  const cmd = `tty > ${pty}; stty rows 40 cols 100; exec ${[process.execPath, BIN, 'leases', 'ssh', lease, ...args].map((a) => `'${a}'`).join(' ')}`;
  const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: { ...env(), TERM: 'xterm' } });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const done = new Promise<number | null>((resolve) => child.on('close', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  void done.then(() => clearTimeout(timer));
  return { send: (text: string) => child.stdin.write(text), output: () => out, done };
}

before(async () => {
  box.write({});
  s = await connect(box);
  await leaseReady(s, { template: 'debian-x11', ttl_seconds: 900 }, 90, (id) => { lease = id; });
  identity = `vmhub-${box.instance}-${lease}`;
  keyFile = join(box.dir, 'provider-docker', 'keys', `${identity}.json`);
});
after(async () => { await box.end(s, [lease]); });

describe('server: leases ssh on a Docker debian-x11 lease', { timeout: 300_000 }, () => {
  it('vm_lease_status gives the command; the lease key is one 0600 file in the state directory', async () => {
    const st = await s.call('vm_lease_status', { lease_id: lease });
    assert.equal(st.structuredContent.access?.ssh, `vmhub-server leases ssh ${lease}`);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    assert.equal(JSON.parse(readFileSync(keyFile, 'utf8')).hostKey, undefined, 'no host key pinned before the first connection');
  });

  it('a command: its stdout and stderr, and its exit code as the CLI\'s; the host key is pinned', async () => {
    const r = await ssh('--', 'sh', '-c', 'echo hi; whoami; echo oops >&2; exit 3');
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, 'hi\nuser\n');
    assert.equal(r.stderr, 'oops\n');
    const pub = (await run('docker', ['exec', identity, 'cat', '/etc/ssh/ssh_host_ed25519_key.pub'])).stdout.split(' ')[1]!;
    assert.equal(JSON.parse(readFileSync(keyFile, 'utf8')).hostKey, createHash('sha256').update(Buffer.from(pub, 'base64')).digest('base64'), 'the container\'s own host key, pinned');
    const args = await ssh('--', 'printf', '%s|', 'a b', '$(id)', '--help');
    assert.equal(args.code, 0, args.stderr);
    assert.equal(args.stdout, 'a b|$(id)|--help|', 'argv arrives word by word, nothing interpreted, our options not taken from it');
    const stdin = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'leases', 'ssh', lease], { env: env() });
      let stdout = '';
      child.stdout.on('data', (d) => { stdout += d; });
      child.on('close', (code) => resolve({ code, stdout }));
      child.stdin.end('echo from-stdin; tty; exit 5\n');
    });
    assert.deepEqual(stdin, { code: 5, stdout: 'from-stdin\nnot a tty\n' }, 'no command, stdin not a TTY: a shell reading stdin, no pty');
  });

  it('a different host key later is refused with a clear line, and nothing runs', async () => {
    const held = readFileSync(keyFile, 'utf8');
    writeFileSync(keyFile, JSON.stringify({ ...JSON.parse(held), hostKey: createHash('sha256').update('another host').digest('base64') }), { mode: 0o600 });
    try {
      const r = await ssh('--', 'touch', '/tmp/should-not-exist');
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^vmhub-server leases ssh: POLICY_DENIED: lease \S+: the machine's SSH host key changed: it presented SHA256:\S+, but SHA256:\S+ was pinned at the lease's first connection; refusing to connect\n$/);
      await assert.rejects(run('docker', ['exec', identity, 'ls', '/tmp/should-not-exist']));
    } finally {
      writeFileSync(keyFile, held, { mode: 0o600 });
    }
  });

  it('interactive: a shell under a pty; the terminal\'s size at start and after SIGWINCH', async () => {
    const pty = join(box.dir, 'pty-path');
    const t = underPty(pty);
    await until(() => /\$ $/.test(t.output()), 'a prompt', 20_000);
    t.send('tty; stty size\n');
    await until(() => /[\r\n]\/dev\/pts\/\d+\r*\n40 100\r*\n/.test(t.output()), 'tty and size', 10_000).catch((err) => { throw new Error(`${err.message}: ${JSON.stringify(t.output())}`); });
    // The local terminal is resized from outside: the kernel sends the CLI SIGWINCH.
    await run('stty', ['-F', readFileSync(pty, 'utf8').trim(), 'rows', '50', 'cols', '120']);
    await new Promise((r) => setTimeout(r, 500));
    t.send('stty size\n');
    await until(() => /[\r\n]50 120\r*\n/.test(t.output()), 'the new size', 10_000).catch((err) => { throw new Error(`${err.message}: ${JSON.stringify(t.output())}`); });
    t.send('exit 0\n');
    assert.equal(await t.done, 0, t.output());
  });

  it('another principal\'s lease is refused in one line', async () => {
    const r = await ssh('--principal', 'someone-else', '--', 'true');
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `vmhub-server leases ssh: POLICY_DENIED: lease ${lease} belongs to principal "${userInfo().username}", not to "someone-else" (--principal)\n`);
    const own = await ssh('--principal', userInfo().username, '--', 'true');
    assert.equal(own.code, 0, own.stderr);
  });

  it('the session ends when the lease ends; then the command fails naming the state, and the key file is gone', async () => {
    const pending = ssh('--', 'sleep', '120');
    await until(async () => (await run('docker', ['exec', identity, 'pgrep', '-x', 'sleep']).catch(() => ({ stdout: '' }))).stdout.trim() !== '', 'the command running', 20_000);
    const released = await s.call('vm_lease_release', { lease_id: lease });
    assert.equal(released.structuredContent.status, 'released');
    const r = await pending;
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`^vmhub-server leases ssh: LEASE_EXPIRED: lease ${lease} is (releasing|released): the session ended with it\\n$`));
    const after = await ssh('--', 'true');
    assert.equal(after.code, 1);
    assert.equal(after.stderr, `vmhub-server leases ssh: LEASE_EXPIRED: lease ${lease} is released: it has no machine to enter\n`);
    assert.equal(existsSync(keyFile), false, 'the private key is destroyed with the machine');
    assert.equal((await s.call('vm_lease_status', { lease_id: lease })).structuredContent.access, undefined);
  });
});
