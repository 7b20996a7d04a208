/**
 * The guest-agent channel writes and reads with the desktop (cloud-init) user's rights, not the
 * agent's (root), and every failure is a typed error in guest terms — against the simulator's
 * default guest, which has owners, root-only paths (/root, /etc/shadow, /srv/private),
 * directories and the kernel's 255-byte name limit. Small files (one exec's stdin), large ones
 * (parts through a root-only temp directory) and large reads (PVE 9.1 file-read of the user's
 * copy) alike; `agent_user: root` in a template and `user: 'root'` on a call opt out.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { GuestChannel, MachineRef, Provider } from '@vmhub/core';
import { refusals } from '@vmhub/test-kit/errors';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { lease, providerFor, startSim, template } from './helpers/setup.ts';

const H = '/home/vmhub';

describe('proxmox: guest-agent files with the desktop user\'s rights', () => {
  let sim: PveSimulator;
  let provider: Provider;
  let machine: MachineRef;
  let vmid: number;
  let ch: GuestChannel;
  const tpl = template({}, { channel: 'agent' });
  const { refused, tally } = refusals();

  before(async () => {
    sim = await startSim({ guest: { agentDelayMs: 50, rootOnly: ['/root', '/etc/shadow', '/srv/private'] } });
    provider = providerFor(sim, 'agf');
    machine = await provider.create({ ...lease('agf'), template: tpl, signal: AbortSignal.timeout(20_000) });
    await provider.ready(machine, { signal: AbortSignal.timeout(20_000), stage: () => undefined, template: tpl });
    vmid = Number(machine.external_id);
    sim.state.writeGuestFile(vmid, '/etc/shadow', 'root:*:1:0:99999:7:::\n');
    sim.state.writeGuestFile(vmid, '/root/secret.txt', 'secret\n');
    sim.state.addGuestDir(vmid, '/srv/private');
    sim.state.writeGuestFile(vmid, '/srv/private/file', 'private\n');
    sim.state.writeGuestFile(vmid, `${H}/root-owned.txt`, 'root wrote this\n');
    sim.state.writeGuestFile(vmid, `${H}/afile`, 'x', 'vmhub');
    ch = await provider.channel!(machine, tpl);
  });
  after(async () => {
    await ch?.close();
    if (machine) await provider.destroy(machine);
    assert.deepEqual(sim.violations, []);
    await provider?.close?.();
    await sim?.close();
  });

  for (const [size, label] of [[100, 'small (one exec)'], [200 * 1024, 'large (parts)']] as const) {
    it(`${label}: what it writes belongs to the user; root's places are POLICY_DENIED and untouched`, async () => {
      const data = randomBytes(size);
      await ch.putFile(`${H}/new/dir/f-${size}.bin`, data, { mode: 0o640 });
      assert.ok(sim.state.readGuestFile(vmid, `${H}/new/dir/f-${size}.bin`)?.equals(data));
      assert.deepEqual([`${H}/new`, `${H}/new/dir`, `${H}/new/dir/f-${size}.bin`].map((p) => sim.state.guestFileOwner(vmid, p)), ['vmhub', 'vmhub', 'vmhub']);
      for (const p of ['/root/pwned.txt', '/root/.ssh/authorized_keys', '/etc/shadow', '/srv/private/new', '/srv/private/file', `${H}/root-owned.txt`, '/usr/bin/pwned']) {
        await refused(`put ${p}`, ch.putFile(p, data), 'POLICY_DENIED', /permission denied: guest user "vmhub"/);
      }
      assert.equal(sim.state.readGuestFile(vmid, '/root/pwned.txt'), undefined);
      assert.equal(sim.state.readGuestFile(vmid, '/etc/shadow')?.toString(), 'root:*:1:0:99999:7:::\n');
      assert.equal(sim.state.readGuestFile(vmid, `${H}/root-owned.txt`)?.toString(), 'root wrote this\n');
      assert.deepEqual([...sim.state.raw(vmid)!.guest.files.keys()].filter((f) => f.includes('vmhub-put')), [], 'no temp part is left');
    });

    it(`${label}: a directory, a name over 255 bytes and a path through a file are INVALID_REQUEST`, async () => {
      const data = randomBytes(size);
      for (const p of [H, '/tmp', `${H}/new`]) await refused(`put onto ${p}`, ch.putFile(p, data), 'INVALID_REQUEST', /is a directory/);
      await refused('put long name', ch.putFile(`${H}/${'a'.repeat(300)}`, data), 'INVALID_REQUEST', /longer than 255 bytes/);
      await refused('put long parent', ch.putFile(`${H}/${'é'.repeat(150)}/x`, data), 'INVALID_REQUEST', /longer than 255 bytes/);
      await refused('put through a file', ch.putFile(`${H}/afile/x`, data), 'INVALID_REQUEST', /not a directory/);
    });
  }

  it('reads are the user\'s: /etc/shadow and root-only files are POLICY_DENIED, directories INVALID_REQUEST, missing NOT_FOUND', async () => {
    for (const p of ['/etc/shadow', '/root/secret.txt', '/srv/private/file']) await refused(`get ${p}`, ch.getFile(p), 'POLICY_DENIED', /permission denied/);
    for (const p of [H, '/tmp']) await refused(`get ${p}`, ch.getFile(p), 'INVALID_REQUEST', /is a directory/);
    await refused('get long', ch.getFile(`${H}/${'b'.repeat(256)}`), 'INVALID_REQUEST', /longer than 255 bytes/);
    await refused('get missing', ch.getFile(`${H}/nope`), 'NOT_FOUND');
    await refused('get through a file', ch.getFile(`${H}/afile/x`), 'INVALID_REQUEST', /not a directory/);
  });

  it('a 13 MiB file round-trips as the user (parts in, file-read of the user\'s copy out), temp files gone', async (t) => {
    const data = randomBytes(13 * 1024 * 1024);
    const t0 = Date.now();
    await ch.putFile(`${H}/big.bin`, data);
    const put = Date.now() - t0;
    const t1 = Date.now();
    const back = await ch.getFile(`${H}/big.bin`, { maxBytes: 16 * 1024 * 1024 });
    const get = Date.now() - t1;
    assert.ok(back.equals(data));
    assert.equal(sim.state.guestFileOwner(vmid, `${H}/big.bin`), 'vmhub');
    assert.ok(sim.state.requests.log.some((r) => r.path.endsWith('/agent/file-read')), 'read back through file-read');
    assert.deepEqual([...sim.state.raw(vmid)!.guest.files.keys()].filter((f) => f.startsWith('/tmp/vmhub-')), [], 'no temp file is left');
    await refused('big /etc/shadow', ch.getFile('/etc/shadow', { maxBytes: 16 * 1024 * 1024 }), 'POLICY_DENIED');
    t.diagnostic(`13 MiB through the simulated agent: put ${put} ms, get ${get} ms; refusals ${JSON.stringify(tally)}`);
  });

  it('agent_user: root in a template, or user: root on a call, writes as root (the agent\'s own user)', async () => {
    await ch.putFile('/srv/private/by-root.txt', Buffer.from('r'), { user: 'root' });
    assert.equal(sim.state.guestFileOwner(vmid, '/srv/private/by-root.txt'), 'root');
    const rootTpl = template({}, { channel: 'agent', agent_user: 'root' });
    const rc = await provider.channel!(machine, rootTpl);
    try {
      await rc.putFile('/root/ok.txt', Buffer.from('ok'));
      assert.equal(sim.state.guestFileOwner(vmid, '/root/ok.txt'), 'root');
      assert.equal((await rc.getFile('/etc/shadow')).toString(), 'root:*:1:0:99999:7:::\n');
      assert.equal((await rc.exec(['whoami'])).stdout.toString(), 'root\n');
    } finally {
      await rc.close();
    }
    assert.equal((await ch.exec(['whoami'])).stdout.toString(), 'vmhub\n', 'the default channel acts as the cloud-init user');
  });
});
