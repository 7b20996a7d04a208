/**
 * The pattern the Proxmox provider's tests use: a real sshd on 127.0.0.1 plays the guest. The
 * VM's cloud-init `sshkeys` (set through the API, URL-encoded) reach the sshd through
 * `guest.onBoot` at start, the agent reports 127.0.0.1, and a real ssh client gets in.
 * Needs openssh-server and openssh-client (Debian).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { startSshd, tempDir, type TempDir, type TestSshd } from '@vmhub/test-kit';
import { startPveSimulator, simClient, type PveSimulator } from '../src/index.ts';

const run = promisify(execFile);

describe('pve-simulator: a loopback sshd as the guest', () => {
  let dir: TempDir;
  let sshd: TestSshd;
  let sim: PveSimulator;

  before(async () => {
    dir = tempDir('pve-sim-ssh-');
    sshd = await startSshd();
    sim = await startPveSimulator({
      tls: false,
      timing: { cloneMs: 20, startMs: 20 },
      guest: {
        agentDelayMs: 50,
        interfaces: () => [{ name: 'eth0', 'ip-addresses': [{ 'ip-address': '127.0.0.1', 'ip-address-type': 'ipv4', prefix: 8 }] }],
        onBoot: async ({ cloudInit }) => {
          // Only the keys cloud-init brings: the sshd's own client key is replaced.
          await writeFile(path.join(sshd.dir, 'authorized_keys'), `${cloudInit.sshkeys ?? ''}\n`, { mode: 0o600 });
        },
      },
    });
  });

  after(async () => {
    await sim?.close();
    await sshd?.stop();
    dir?.cleanup();
  });

  it('lets the per-lease key set through cloud-init open a real SSH session', async () => {
    const api = simClient(sim);
    const key = path.join(dir.path, 'lease_key');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'vmhub lease', '-f', key]);
    const pub = (await readFile(`${key}.pub`, 'utf8')).trim();

    const clone = await api.post('/nodes/pve1/qemu/9000/clone', { newid: 500, name: 'ssh-guest' });
    assert.equal(await api.waitTask(clone.body.data), 'OK');
    const put = await api.put('/nodes/pve1/qemu/500/config', { ciuser: 'root', sshkeys: encodeURIComponent(pub), ipconfig0: 'ip=dhcp' });
    assert.equal(put.status, 200, put.reason);
    assert.equal(await api.waitTask((await api.post('/nodes/pve1/qemu/500/status/start')).body.data), 'OK');

    let address: string | undefined;
    for (let i = 0; i < 200 && !address; i++) {
      const r = await api.get('/nodes/pve1/qemu/500/agent/network-get-interfaces');
      if (r.status === 200) address = r.body.data.result.find((x: { name: string }) => x.name === 'eth0')['ip-addresses'][0]['ip-address'];
      else await new Promise((res) => setTimeout(res, 25));
    }
    assert.equal(address, '127.0.0.1');

    let out = '';
    for (let i = 0; i < 50 && !out; i++) {
      try {
        out = (await run('ssh', ['-i', key, '-p', String(sshd.port), '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=5', `root@${address}`, 'echo', 'guest-ok'], { timeout: 10_000 })).stdout;
      } catch {
        await new Promise((res) => setTimeout(res, 100)); // sshd may still be starting
      }
    }
    assert.equal(out.trim(), 'guest-ok');
    assert.deepEqual(sim.violations, []);
  });
});
