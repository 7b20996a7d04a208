// `vmhub-server leases ssh` on a QEMU (TCG) lease, through the BUILT server and CLI: the
// tiny-console-ssh template (sshd in the golden without keys; the lease's key from a cloud-init
// NoCloud seed, provider-qemu). A command's output and exit code come back; a shell runs under a
// pseudo-terminal; after release the command fails with one line naming the state and the lease's
// key file is gone. (The Docker side, with host-key pinning and principals: leases-ssh.test.ts.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tinyConsoleSshTemplate } from '@vmhub/provider-qemu';
import { until } from '@vmhub/test-kit';
import { BIN, connect, leaseReady, machineBox, runBin, type Session } from './harness.ts';

const box = machineBox('lsshq', 'lq');
let s: Session;
let lease = '';
let keyFile = '';

const ssh = (...args: string[]) => runBin(box, ['leases', 'ssh', lease, ...args], {}, 60_000);

before(async () => {
  box.write({ templates: [tinyConsoleSshTemplate()], providers: { qemu: { state_dir: join(box.dir, 'qemu') } } });
  s = await connect(box);
  await leaseReady(s, { template: 'tiny-console-ssh', ttl_seconds: 900 }, 120, (id) => { lease = id; });
  keyFile = join(box.dir, 'provider-qemu', 'keys', `vmhub-${box.instance}-${lease}.json`);
});
after(async () => { await box.end(s, [lease]); });

describe('server: leases ssh on a QEMU lease', { timeout: 300_000 }, () => {
  it('vm_lease_status gives the command; a command\'s output and exit code come back', async () => {
    const st = await s.call('vm_lease_status', { lease_id: lease });
    assert.equal(st.structuredContent.access?.ssh, `vmhub-server leases ssh ${lease}`);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const r = await ssh('--', 'sh', '-c', 'echo hi; id -un; echo oops >&2; exit 4');
    assert.equal(r.code, 4, r.stderr);
    assert.equal(r.stdout, 'hi\nuser\n');
    assert.equal(r.stderr, 'oops\n');
  });

  it('a shell under a pseudo-terminal', async () => {
    const cmd = `stty rows 30 cols 90; exec ${[process.execPath, BIN, 'leases', 'ssh', lease].map((a) => `'${a}'`).join(' ')}`;
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: { PATH: process.env.PATH ?? '', HOME: box.dir, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'warn', TERM: 'xterm' } });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const done = new Promise<number | null>((resolve) => child.on('close', resolve));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    try {
      // busybox ash asks the terminal where the cursor is (ESC [6n) after its prompt.
      await until(() => /[$#] (\x1b\[6n)?$/.test(out), 'a prompt', 30_000).catch((err) => { throw new Error(`${err.message}: ${JSON.stringify(out)}`); });
      child.stdin.write('tty; stty size\n');
      await until(() => /[\r\n]\/dev\/pts\/\d+\r*\n30 90\r*\n/.test(out), 'tty and size', 15_000).catch((err) => { throw new Error(`${err.message}: ${JSON.stringify(out)}`); });
      child.stdin.write('exit 0\n');
      assert.equal(await done, 0, out);
    } finally {
      clearTimeout(timer);
    }
  });

  it('after release: one line naming the state; the key file is gone', async () => {
    const released = await s.call('vm_lease_release', { lease_id: lease });
    assert.equal(released.structuredContent.status, 'released');
    const r = await ssh('--', 'true');
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `vmhub-server leases ssh: LEASE_EXPIRED: lease ${lease} is released: it has no machine to enter\n`);
    assert.equal(existsSync(keyFile), false);
    lease = '';
  });
});
