/**
 * The guest-agent channel on a real qemu booting tiny-console-agent, with a template whose `user`
 * is the golden's desktop user: execs and files act as that user (the agent itself is root), and
 * every file failure is a typed error in guest terms — a directory, names over 255 bytes, symlink
 * loops, paths through files, FIFOs, /root and /etc/shadow. The same failures through the root
 * channel (no `user`) are typed too. And state(): running, SIGSTOP'd and QMP-paused qemu, forged
 * identities, a qemu killed behind vmhub's back.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { GuestChannel, MachineRef, Provider, TemplateConfig } from '@vmhub/core';
import { refusals } from '@vmhub/test-kit/errors';
import plugin, { buildGolden, tinyConsoleAgentTemplate } from '../src/index.ts';
import { readRecord } from '../src/state-dir.ts';
import { testContext, testPrefix } from './helpers.ts';

const H = '/home/user';

describe('qemu: guest-agent channel as the desktop user; typed file errors; state()', { timeout: 400_000 }, () => {
  const prefix = testPrefix();
  const identity = `${prefix}${randomUUID()}`;
  let root: string;
  let rootTpl: TemplateConfig;
  let userTpl: TemplateConfig;
  let provider: Provider;
  let machine: MachineRef | undefined;
  let asUser: GuestChannel;
  const { refused, tally } = refusals();
  /** A command as root in the guest (the test's own eyes; the agent's socket serves one channel at a time). */
  const sh = async (script: string): Promise<string> => {
    const r = await asUser.exec(['/bin/sh', '-c', script], { user: 'root', timeoutMs: 30_000 });
    assert.equal(r.exit_code, 0, `${script}: ${r.stderr.toString()}`);
    return r.stdout.toString();
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-user-'));
    await buildGolden('tiny-console-agent', { dir: join(root, 'golden') });
    rootTpl = tinyConsoleAgentTemplate(join(root, 'golden'));
    userTpl = { ...rootTpl, id: 'tiny-console-agent-user', provider_options: { ...rootTpl.provider_options, user: 'user' } };
    provider = plugin.create({ state_dir: join(root, 'state') }, testContext(prefix));
    machine = await provider.create({ lease_id: identity.slice(prefix.length), identity, template: userTpl, signal: AbortSignal.timeout(60_000) });
    await provider.ready(machine, { template: userTpl, signal: AbortSignal.timeout(240_000), stage: () => {} });
    asUser = await provider.channel!(machine, userTpl);
    await sh([
      'echo secret > /root/secret.txt', 'chmod 600 /root/secret.txt', 'echo root-owned > /tmp/rootfile', 'chmod 644 /tmp/rootfile',
      `mkdir -p ${H}/adir`, `echo x > ${H}/afile`, `mkfifo ${H}/fifo`, `ln -s /root ${H}/rootlink`, `ln -s /root/new.txt ${H}/newroot`,
      `ln -s loop-b ${H}/loop-a`, `ln -s loop-a ${H}/loop-b`, `chown -h 1000:1000 ${H}/adir ${H}/afile ${H}/fifo ${H}/rootlink ${H}/newroot ${H}/loop-a ${H}/loop-b`,
    ].join(' && '));
  });
  after(async () => {
    await asUser?.close();
    if (machine) await provider.destroy(machine).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  });

  it('execs run as the template\'s user (cwd too); a call may still ask for root', async () => {
    assert.equal((await asUser.exec(['id', '-un'], { timeoutMs: 30_000 })).stdout.toString(), 'user\n');
    assert.equal((await asUser.exec(['pwd'], { cwd: H, timeoutMs: 30_000 })).stdout.toString(), `${H}\n`);
    assert.equal((await asUser.exec(['id', '-u'], { user: 'root', timeoutMs: 30_000 })).stdout.toString(), '0\n');
    const denied = await asUser.exec(['cat', '/etc/shadow'], { timeoutMs: 30_000 });
    assert.notEqual(denied.exit_code, 0, 'the user cannot read /etc/shadow');
  });

  it('files are written and read as the user: owned by uid 1000, byte-exact, 9 MiB in chunks', async () => {
    const small = Buffer.from('hello from the user\n');
    await asUser.putFile(`${H}/new/dir/f.txt`, small, { mode: 0o640 });
    assert.ok((await asUser.getFile(`${H}/new/dir/f.txt`)).equals(small));
    const big = randomBytes(9 * 1024 * 1024);
    const t0 = Date.now();
    await asUser.putFile('/tmp/big.bin', big);
    const put = Date.now() - t0;
    const t1 = Date.now();
    assert.ok((await asUser.getFile('/tmp/big.bin')).equals(big));
    const get = Date.now() - t1;
    assert.equal(await sh(`stat -c '%u %a' ${H}/new ${H}/new/dir ${H}/new/dir/f.txt /tmp/big.bin`), '1000 755\n1000 755\n1000 640\n1000 644\n');
    process.stderr.write(`[qemu] 9 MiB as the user through the agent: put ${put} ms, get ${get} ms\n`);
  });

  it('as the user: /root, /etc/shadow and symlinks into /root are POLICY_DENIED, and nothing lands there', async () => {
    const before = await sh('ls -A /root; cat /tmp/rootfile; md5sum /etc/shadow');
    for (const p of ['/root/pwned.txt', '/root/.ssh/authorized_keys', `${H}/rootlink/pwned.txt`, `${H}/newroot`, '/etc/shadow', '/etc/passwd', '/tmp/rootfile']) {
      await refused(`put ${p}`, asUser.putFile(p, Buffer.from('pwned')), 'POLICY_DENIED', /permission denied: guest user "user"/);
    }
    for (const p of ['/etc/shadow', '/root/secret.txt', `${H}/rootlink/secret.txt`]) await refused(`get ${p}`, asUser.getFile(p), 'POLICY_DENIED', /permission denied/);
    assert.equal(await sh('ls -A /root; cat /tmp/rootfile; md5sum /etc/shadow'), before);
  });

  for (const who of ['user', 'root'] as const) {
    it(`as ${who}: a directory, a name over 255 bytes, a symlink loop, a path through a file and a FIFO are INVALID_REQUEST; missing is NOT_FOUND`, async () => {
      if (who === 'root') await asUser.close();
      const ch = who === 'user' ? asUser : await provider.channel!(machine!, rootTpl);
      try {
        const data = Buffer.from('x');
        for (const p of [H, '/tmp', `${H}/adir`]) await refused(`put onto ${p}`, ch.putFile(p, data), 'INVALID_REQUEST', /is a directory/);
        for (const p of ['/tmp', `${H}/adir`]) await refused(`get ${p}`, ch.getFile(p), 'INVALID_REQUEST', /is a directory/);
        await refused('put long', ch.putFile(`${H}/${'a'.repeat(300)}`, data), 'INVALID_REQUEST', /longer than 255 bytes/);
        await refused('get long', ch.getFile(`${H}/${'é'.repeat(150)}`), 'INVALID_REQUEST', /longer than 255 bytes/);
        await refused('put loop', ch.putFile(`${H}/loop-a`, data), 'INVALID_REQUEST', /symbolic links/);
        await refused('get loop', ch.getFile(`${H}/loop-b`), 'INVALID_REQUEST', /symbolic links/);
        await refused('put through a file', ch.putFile(`${H}/afile/x.txt`, data), 'INVALID_REQUEST', /not a directory/);
        await refused('get through a file', ch.getFile(`${H}/afile/x.txt`), 'INVALID_REQUEST', /not a directory/);
        await refused('get fifo', ch.getFile(`${H}/fifo`), 'INVALID_REQUEST', /not a regular file/);
        await refused('get missing', ch.getFile(`${H}/nope.txt`), 'NOT_FOUND');
        assert.equal((await ch.exec(['echo', 'still serving'], { timeoutMs: 30_000 })).stdout.toString(), 'still serving\n', 'the agent is not wedged (no FIFO open hangs it)');
      } finally {
        if (who === 'root') {
          await ch.close();
          asUser = await provider.channel!(machine!, userTpl);
        }
      }
    });
  }

  it('a cancelled exec as the user is killed in the guest, with what su/runuser started', async () => {
    const r = await asUser.exec(['sleep', '300'], { timeoutMs: 60_000, signal: AbortSignal.timeout(1500) });
    assert.deepEqual([r.exit_code, r.timed_out], [null, true]);
    let left = '';
    for (let i = 0; i < 20; i++) {
      left = (await sh('ps')).split('\n').filter((l) => /\bsleep 300\b/.test(l)).join('\n');
      if (!left) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    assert.equal(left, '', 'no sleep 300 left in the guest');
    process.stderr.write(`[qemu] refusals by code: ${JSON.stringify(tally)}\n`);
  });

  it('state(): running; SIGSTOP → stopped; QMP stop → stopped; forged identity → gone', async () => {
    assert.equal(await provider.state!(machine!), 'running');
    const record = (await readRecord(join(root, 'state', identity)))!;
    // A signal takes effect asynchronously: on a loaded host the process may not be stopped (or
    // running again) yet when kill() returns, so wait for the state, bounded.
    const settles = async (want: string) => {
      let got = '';
      for (let i = 0; i < 100 && got !== want; i++) {
        got = await provider.state!(machine!);
        if (got !== want) await new Promise((res) => setTimeout(res, 100));
      }
      return got;
    };
    process.kill(record.pid, 'SIGSTOP');
    try {
      assert.equal(await settles('stopped'), 'stopped');
    } finally {
      process.kill(record.pid, 'SIGCONT');
    }
    assert.equal(await settles('running'), 'running');
    const con = await provider.console!(machine!);
    try {
      await con.execute('stop');
      assert.equal(await provider.state!(machine!), 'stopped');
      await con.execute('cont');
      assert.equal(await provider.state!(machine!), 'running');
    } finally {
      await con.close();
    }
    assert.equal(await provider.state!({ ...machine!, identity: `${prefix}${randomUUID()}` }), 'gone');
    assert.equal(await provider.state!({ identity: 'not/a/safe id', external_id: '' }), 'gone');
  });

  it('state(): a qemu killed behind vmhub\'s back is gone (never throws), and so is a destroyed one', async () => {
    const record = (await readRecord(join(root, 'state', identity)))!;
    process.kill(record.pid, 'SIGKILL');
    let now = await provider.state!(machine!);
    for (let i = 0; i < 50 && now !== 'gone'; i++) {
      await new Promise((res) => setTimeout(res, 100));
      now = await provider.state!(machine!);
    }
    assert.equal(now, 'gone');
    assert.equal(await provider.destroy(machine!), 'already_gone');
    assert.equal(await provider.state!(machine!), 'gone');
    machine = undefined;
  });
});
