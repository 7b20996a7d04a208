/**
 * docker: files are written and read with the desktop user's rights, and every failure is a typed
 * error in guest terms. Against the real engine and the debian-x11 golden, with both file tools
 * (perl, the default; sh + coreutils, for images without perl): a put onto a directory, names over
 * 255 bytes, a deep path, symlink loops, symlinks into /root, root-only files and directories,
 * FIFOs and devices. Effects are checked as root inside the container: owners are the user's uid
 * and nothing lands in /root. No message may name a host path or the container id.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { VmhubError, type GuestChannel, type MachineRef } from '@vmhub/core';
import { DockerChannel } from '../src/index.ts';
import { writeTar } from '@vmhub/core';
import { Readable } from 'node:stream';
import { docker, ensureGolden, makeProvider, removeContainers, template } from './fixture.ts';

const H = '/home/user';

describe('docker: files with the desktop user\'s rights, typed errors', { timeout: 240_000 }, () => {
  const { provider, context } = makeProvider();
  const identity = `${context.identityPrefix}${randomUUID()}`;
  let machine: MachineRef;
  let root: GuestChannel;
  let rootHome = '';
  const tally: Record<string, number> = {};

  const sh = async (script: string): Promise<string> => {
    const r = await root.exec(['sh', '-c', script], { user: 'root' });
    assert.equal(r.exit_code, 0, `setup failed: ${script}: ${r.stderr.toString()}`);
    return r.stdout.toString();
  };

  /** The call must fail with `code` (and `re`), in guest terms. */
  async function refused(what: string, p: Promise<unknown>, code: string, re?: RegExp): Promise<void> {
    let err: unknown;
    try { await p; } catch (e) { err = e; }
    assert.ok(VmhubError.is(err), `${what}: expected ${code}, got ${err === undefined ? 'success' : String(err)}`);
    tally[err.code] = (tally[err.code] ?? 0) + 1;
    assert.equal(err.code, code, `${what}: ${err.code} ${err.message}`);
    assert.equal(err.retryable, false, `${what}: must not be retryable`);
    if (re) assert.match(err.message, re, what);
    for (const leak of ['/var/lib/docker', 'overlay2', machine.external_id, machine.external_id.slice(0, 12)]) {
      assert.ok(!err.message.includes(leak) && !JSON.stringify(err.details ?? {}).includes(leak), `${what}: the message leaks ${leak}: ${err.message}`);
    }
  }

  before(async () => {
    await ensureGolden();
    machine = await provider.create({ lease_id: identity.slice(context.identityPrefix.length), identity, template, signal: AbortSignal.timeout(60_000) });
    await provider.ready(machine, { signal: AbortSignal.timeout(60_000), template, stage: () => {} });
    root = await provider.channel!(machine, template);
    await sh([
      `mkdir -p ${H}/adir /srv/private && chown user:user ${H}/adir && chmod 700 /srv/private`,
      `echo root-secret > /root/secret.txt && chmod 600 /root/secret.txt && echo private > /srv/private/file`,
      `ln -s /root/owned.txt ${H}/into-root && ln -s /root ${H}/rootdir && ln -s loop-b ${H}/loop-a && ln -s loop-a ${H}/loop-b`,
      `echo root-owned > /tmp/rootfile && chmod 644 /tmp/rootfile && echo x > ${H}/afile && mkfifo ${H}/fifo`,
      `chown -h user:user ${H}/into-root ${H}/rootdir ${H}/loop-a ${H}/loop-b ${H}/afile ${H}/fifo`,
    ].join(' && '));
    rootHome = await sh('ls -A /root');
  });
  after(async () => {
    await root?.close();
    await removeContainers(identity);
    await provider.close?.();
  });

  for (const tool of ['perl', 'sh'] as const) {
    describe(`file tool: ${tool}`, () => {
      let ch: GuestChannel;
      before(async () => {
        ch = await DockerChannel.open(docker, machine.external_id, { identity, desktopUser: 'user', maxFileBytes: 100 * 1024 * 1024, maxArchiveBytes: 1 << 30, useHelper: true, fileTool: tool, log: () => {} });
      });
      after(async () => { await ch?.close(); });

      it('a put onto a directory is INVALID_REQUEST "is a directory", and the directory is left alone', async () => {
        for (const p of [`${H}/adir`, '/tmp', H, `${H}/adir/`]) await refused(`put ${p}`, ch.putFile(p, Buffer.from('x')), 'INVALID_REQUEST', /is a directory/);
        assert.equal(await sh(`stat -c %F ${H}/adir /tmp`), 'directory\ndirectory\n');
      });

      it('names over 255 bytes are INVALID_REQUEST naming the limit, in the file or a parent', async () => {
        for (const name of ['a'.repeat(300), 'é'.repeat(150), `${'b'.repeat(256)}/x.txt`, `ok/${'c'.repeat(1000)}`]) {
          await refused(`put ${name.slice(0, 20)}…`, ch.putFile(`${H}/${name}`, Buffer.from('x')), 'INVALID_REQUEST', /longer than 255 bytes/);
          await refused(`get ${name.slice(0, 20)}…`, ch.getFile(`${H}/${name}`), 'INVALID_REQUEST', /longer than 255 bytes/);
        }
      });

      it('a 2000-deep path inside the limits is written as the user; one over 4096 bytes is refused', async () => {
        const deep = `${H}/deep-${tool}/${'d/'.repeat(2000)}f.txt`;
        await ch.putFile(deep, Buffer.from('deep'));
        assert.equal((await ch.getFile(deep)).toString(), 'deep');
        const owners = await sh(`cd ${H}/deep-${tool} && stat -c %u ${'d/'.repeat(2000)}f.txt && find . -not -user 1000 | wc -l`);
        assert.equal(owners, '1000\n0\n', 'the file and all 2000 directories belong to the user');
        await refused('put 4100-byte path', ch.putFile(`${H}/${'e/'.repeat(2050)}f`, Buffer.from('x')), 'INVALID_REQUEST', /4096 bytes/);
      });

      it('symlink loops are INVALID_REQUEST, at the file and on the way', async () => {
        await refused('put loop', ch.putFile(`${H}/loop-a`, Buffer.from('x')), 'INVALID_REQUEST', /symbolic links/);
        await refused('put through loop', ch.putFile(`${H}/loop-a/x.txt`, Buffer.from('x')), 'INVALID_REQUEST', tool === 'perl' ? /symbolic links/ : /symbolic links|not a directory/);
        await refused('get loop', ch.getFile(`${H}/loop-b`), 'INVALID_REQUEST', /symbolic links/);
      });

      it('writing through a symlink into /root, or into a root-only directory, is POLICY_DENIED and writes nothing', async () => {
        await refused('put via into-root', ch.putFile(`${H}/into-root`, Buffer.from('pwned')), 'POLICY_DENIED', /permission denied: guest user "user"/);
        await refused('put via rootdir/', ch.putFile(`${H}/rootdir/pwned.txt`, Buffer.from('pwned')), 'POLICY_DENIED');
        await refused('put /root/direct', ch.putFile('/root/direct.txt', Buffer.from('pwned')), 'POLICY_DENIED');
        await refused('put /root/new/dir/f', ch.putFile('/root/new/dir/f', Buffer.from('pwned')), 'POLICY_DENIED');
        await refused('put /srv/private/f', ch.putFile('/srv/private/f', Buffer.from('pwned')), 'POLICY_DENIED');
        await refused('put /etc/passwd', ch.putFile('/etc/passwd', Buffer.from('pwned')), 'POLICY_DENIED');
        await refused('put over root file', ch.putFile('/tmp/rootfile', Buffer.from('pwned')), 'POLICY_DENIED');
        assert.equal(await sh('ls -A /root; cat /tmp/rootfile; ls -A /srv/private; grep -c pwned /etc/passwd || true'), `${rootHome}root-owned\nfile\n0\n`);
      });

      it('reading /etc/shadow, a root-only file or one through a symlink into /root is POLICY_DENIED', async () => {
        for (const p of ['/etc/shadow', '/root/secret.txt', `${H}/rootdir/secret.txt`, '/srv/private/file']) await refused(`get ${p}`, ch.getFile(p), 'POLICY_DENIED', /permission denied/);
        await refused('get missing', ch.getFile(`${H}/nope.txt`), 'NOT_FOUND', /no such file/);
        await refused('get dangling into-root', ch.getFile(`${H}/into-root`), 'POLICY_DENIED');
      });

      it('a path through a file, a FIFO and a device are INVALID_REQUEST', async () => {
        await refused('put afile/x', ch.putFile(`${H}/afile/x.txt`, Buffer.from('x')), 'INVALID_REQUEST', /not a directory/);
        await refused('get afile/x', ch.getFile(`${H}/afile/x.txt`), 'INVALID_REQUEST', /not a directory/);
        await refused('get fifo', ch.getFile(`${H}/fifo`), 'INVALID_REQUEST', /not a regular file/);
        await refused('get /dev/zero', ch.getFile('/dev/zero'), 'INVALID_REQUEST', /not a regular file/);
      });

      it('what it writes belongs to the user, parents included; mode is applied; a user-owned symlink is followed', async () => {
        await ch.putFile(`${H}/made-${tool}/sub/f.sh`, Buffer.from('#!/bin/sh\n'), { mode: 0o750 });
        await ch.putFile(`/tmp/tmp-${tool}.txt`, Buffer.from('tmp'));
        await sh(`ln -sf ${H}/made-${tool}/sub/f.sh ${H}/link-${tool} && chown -h user:user ${H}/link-${tool}`);
        await ch.putFile(`${H}/link-${tool}`, Buffer.from('#!/bin/sh\necho via link\n'));
        assert.equal(await sh(`stat -c '%u:%g %a' ${H}/made-${tool} ${H}/made-${tool}/sub ${H}/made-${tool}/sub/f.sh /tmp/tmp-${tool}.txt; cat ${H}/made-${tool}/sub/f.sh`),
          `1000:1000 755\n1000:1000 755\n1000:1000 750\n1000:1000 644\n#!/bin/sh\necho via link\n`);
      });
    });
  }

  it('putArchive unpacks as the user: its files are the user\'s, and a symlink in the archive cannot carry a file into /root', async () => {
    const ch = await provider.channel!(machine, template);
    try {
      const tar = writeTar([
        { name: 'ok/a.txt', data: Buffer.from('a\n'), uid: 0, gid: 0, uname: 'root', gname: 'root', mode: 0o4755 },
        { name: 'esc', type: 'symlink', linkname: '/root' },
        { name: 'esc/pwned.txt', data: Buffer.from('pwned\n') },
      ]);
      let err: unknown;
      try { await ch.putArchive!(`${H}/unpacked`, Readable.from([tar])); } catch (e) { err = e; }
      if (err) assert.ok(VmhubError.is(err) && err.code !== 'INTERNAL', String(err));
      assert.equal(await sh(`ls -A /root; stat -c '%u %a' ${H}/unpacked/ok/a.txt`), `${rootHome}1000 755\n`, 'nothing in /root; no setuid root file');
      await refused('putArchive into /root', ch.putArchive!('/root/unpack', Readable.from([writeTar([{ name: 'x', data: Buffer.from('x') }])])), 'POLICY_DENIED');
    } finally {
      await ch.close();
    }
  });

  it('1 MiB put and get as the user stay fast', async (t) => {
    const data = Buffer.alloc(1024 * 1024, 7);
    const put: number[] = [];
    const get: number[] = [];
    for (let i = 0; i < 10; i++) {
      let t0 = performance.now();
      await root.putFile(`${H}/mib.bin`, data);
      put.push(performance.now() - t0);
      t0 = performance.now();
      assert.ok((await root.getFile(`${H}/mib.bin`)).equals(data));
      get.push(performance.now() - t0);
    }
    const p50 = (a: number[]) => [...a].sort((x, y) => x - y)[5]!;
    t.diagnostic(`1 MiB as the user: put p50 ${p50(put).toFixed(1)} ms (max ${Math.max(...put).toFixed(1)}), get p50 ${p50(get).toFixed(1)} ms (max ${Math.max(...get).toFixed(1)})`);
    t.diagnostic(`refusals by code: ${JSON.stringify(tally)}`);
    assert.ok(p50(put) < 500 && p50(get) < 500, 'well under a second');
  });
});
