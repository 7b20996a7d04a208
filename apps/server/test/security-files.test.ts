// Security: files through the BUILT server on the real Docker desktop (debian-x11 golden), as an
// attacker or a careless agent would try them (issue 10, items 6 and 7). Several spellings of
// each case — a put onto a directory, names over 255 bytes, a 2000-deep path, symlink loops,
// symlinks into /root, /etc/shadow, files in root-only directories, a clone into /root — and
// for every answer: a typed code that is not INTERNAL, no host path (`/var/lib/docker`,
// `overlay2`) and no container id in anything the client sees. Effects are checked with
// `docker exec` as root: what was written belongs to the desktop user (uid 1000), nothing landed
// in /root, /etc/shadow and the root-only directory are unchanged.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it, type TestContext } from 'node:test';
import { serveGitRepo, type ServedRepo } from './git-repo.ts';
import { connect, leaseReady, machineBox, type Session } from './harness.ts';

const run = promisify(execFile);
const box = machineBox('secfiles', 'sf');
const { instance } = box;
const H = '/home/user';
let s: Session;
let lease = '';
let container = '';
let containerId = '';
let repo: ServedRepo | undefined;

/** Run a shell script in the container as root (the test's own eyes, not the agent's). */
async function asRoot(script: string): Promise<string> {
  return (await run('docker', ['exec', '-u', 'root', container, 'sh', '-c', script], { maxBuffer: 16 << 20 })).stdout;
}

interface Tally { attempts: number; ok: number; typed: Record<string, number>; internal: number; leaks: number }
const tally: Tally = { attempts: 0, ok: 0, typed: {}, internal: 0, leaks: 0 };

/** One attempt: the answer must be a success or a typed non-INTERNAL error, and leak nothing. */
async function attempt(what: string, tool: string, args: Record<string, unknown>, expect?: string | string[]): Promise<any> {
  tally.attempts++;
  const r = await s.call(tool, { lease_id: lease, ...args });
  const wire = JSON.stringify(r);
  for (const leak of ['/var/lib/docker', 'overlay2', containerId, containerId.slice(0, 12)]) {
    if (wire.includes(leak)) { tally.leaks++; assert.fail(`${what}: the answer shows ${leak}: ${wire.slice(0, 400)}`); }
  }
  if (!r.isError) {
    tally.ok++;
    if (expect !== undefined && expect !== 'ok') assert.fail(`${what}: expected ${String(expect)}, got success`);
    return r;
  }
  const code = r.structuredContent?.code as string;
  assert.ok(code, `${what}: an error without a code: ${wire.slice(0, 300)}`);
  if (code === 'INTERNAL') { tally.internal++; assert.fail(`${what}: INTERNAL: ${r.structuredContent.message}`); }
  tally.typed[code] = (tally.typed[code] ?? 0) + 1;
  assert.equal(r.structuredContent.retryable, code === 'TIMEOUT', `${what}: ${code} must not be retryable (${r.structuredContent.message})`);
  if (expect !== undefined) {
    const want = Array.isArray(expect) ? expect : [expect];
    assert.ok(want.includes(code), `${what}: expected ${want.join('|')}, got ${code}: ${r.structuredContent.message}`);
  }
  return r;
}

const put = (what: string, path: string, expect?: string | string[], content = 'vmhub was here\n') => attempt(`put ${what}`, 'vm_put_file', { path, content }, expect);
const get = (what: string, path: string, expect?: string | string[], extra: Record<string, unknown> = {}) => attempt(`get ${what}`, 'vm_get_file', { path, ...extra }, expect);

/** What must not change, as root sees it. */
async function fingerprint(): Promise<string> {
  return asRoot("find /root /srv/private -exec stat -c '%n %u %s %Y' {} + | sort; sha256sum /etc/shadow /etc/passwd /srv/private/file");
}

before(async () => {
  repo = await serveGitRepo(box.dir, { 'README.md': 'repo\n' });
  box.write({ clone: { allowed_schemes: ['git'], allow_private_hosts: true } });
  s = await connect(box);
  await leaseReady(s, { template: 'debian-x11', ttl_seconds: 900 }, 90, (id) => { lease = id; });
  container = `vmhub-${instance}-${lease}`;
  containerId = (await run('docker', ['inspect', '-f', '{{.Id}}', container])).stdout.trim();
  // The agent's own setup, as the desktop user (vm_exec), and the operator's, as root.
  const setup = await s.call('vm_exec', { lease_id: lease, command: ['sh', '-c', [
    'mkdir -p ~/adir', 'echo x > ~/afile',
    'ln -s loop-b ~/loop-a', 'ln -s loop-a ~/loop-b', 'ln -s self ~/self',
    'ln -s /root ~/rootlink', 'ln -s /root/.bashrc ~/bashrc-link', 'ln -s /root/new.txt ~/newroot', 'ln -s /etc/shadow ~/shadow-link',
    'ln -s /srv/private ~/private-link',
  ].join(' && ')] });
  assert.equal(setup.structuredContent?.exit_code, 0, JSON.stringify(setup.structuredContent));
  await asRoot('mkdir -p /srv/private && echo private > /srv/private/file && chmod 700 /srv/private && echo secret > /root/secret.txt && chmod 600 /root/secret.txt');
});

after(async () => {
  repo?.stop();
  await box.end(s, [lease]);
});

describe('security: files on the Docker desktop keep to the desktop user\'s rights and answer typed errors', () => {
  let before = '';
  it('baseline: what must not change', async () => { before = await fingerprint(); });

  it('a put onto a directory is INVALID_REQUEST "is a directory", every spelling', async () => {
    for (const p of ['/tmp', H, '.', 'adir', `${H}/adir/`, `${H}/./adir`, '~/adir', '/', '/home']) {
      const r = await put(`onto ${p}`, p, ['INVALID_REQUEST', 'POLICY_DENIED']);
      if (r.structuredContent.code === 'INVALID_REQUEST' && p !== '/') assert.match(r.structuredContent.message, /is a directory|must name a file/, p);
    }
    assert.equal(await asRoot(`stat -c %F ${H}/adir /tmp`), 'directory\ndirectory\n');
  });

  it('names over 255 bytes are INVALID_REQUEST, in the file or a parent, ASCII or not; 255 bytes is fine', async () => {
    for (const p of ['a'.repeat(300), `/tmp/${'b'.repeat(300)}`, 'é'.repeat(150), '✓'.repeat(100), `${'c'.repeat(256)}/x.txt`, `adir/${'d'.repeat(1000)}`]) {
      const r = await put(`${p.slice(0, 12)}… (${Buffer.byteLength(p)} bytes)`, p, 'INVALID_REQUEST');
      assert.match(r.structuredContent.message, /255 bytes/);
      await get(`${p.slice(0, 12)}…`, p, 'INVALID_REQUEST');
    }
    await put('255-byte name', 'e'.repeat(255), 'ok');
    assert.equal(await asRoot(`stat -c %u ${H}/${'e'.repeat(255)}`), '1000\n');
  });

  it('a 2000-deep path is written as the user when it fits 4096 bytes, and refused (typed) when it does not', async () => {
    await put('2000-deep under home', `${'d/'.repeat(2000)}f.txt`, 'ok');
    await put('2000-deep under /tmp', `/tmp/${'x/'.repeat(2000)}f.txt`, 'ok');
    assert.equal(await asRoot(`cd ${H}/d && find . -not -user 1000 | wc -l; cd /tmp/x && find . -not -user 1000 | wc -l`), '0\n0\n', 'every directory and the file belong to the user');
    await put('2100-deep', `${'e/'.repeat(2100)}f.txt`, 'INVALID_REQUEST');
    await put('4000 slashes', `/tmp${'/'.repeat(4000)}f`, 'ok');
    await get('2000-deep', `${'d/'.repeat(2000)}f.txt`, 'ok');
  });

  it('symlink loops are INVALID_REQUEST, at the file and on the way', async () => {
    for (const p of ['loop-a', `${H}/loop-b`, 'self', 'loop-a/x.txt', 'self/deeper/x.txt']) {
      const r = await put(`loop ${p}`, p, 'INVALID_REQUEST');
      assert.match(r.structuredContent.message, /symbolic links|not a directory/);
    }
    for (const p of ['loop-a', 'self']) await get(`loop ${p}`, p, 'INVALID_REQUEST');
  });

  it('symlinks into /root and /root itself are POLICY_DENIED: nothing is written there', async () => {
    for (const p of ['rootlink/pwned.txt', 'bashrc-link', 'newroot', '/root/direct.txt', '/root/.ssh/authorized_keys', `${H}/rootlink/.profile`, 'private-link/new.txt']) {
      await put(`through ${p}`, p, 'POLICY_DENIED');
    }
    for (const p of ['bashrc-link', 'rootlink/.profile', '/root/secret.txt', 'rootlink/secret.txt']) await get(`through ${p}`, p, 'POLICY_DENIED');
  });

  it('/etc/shadow and the files of a root-only directory are POLICY_DENIED, every spelling', async () => {
    for (const p of ['/etc/shadow', '//etc//shadow', '/etc/./shadow', 'shadow-link', '/srv/private/file', 'private-link/file']) await get(p, p, 'POLICY_DENIED');
    await get('/etc/shadow in parts', '/etc/shadow', 'POLICY_DENIED', { offset: 0, length: 10 });
    await get('/etc/../etc/shadow', '/etc/../etc/shadow', 'INVALID_REQUEST');
    for (const p of ['/etc/shadow', '/srv/private/new.txt', '/srv/private/file', '/etc/passwd', '/usr/bin/pwned']) await put(p, p, 'POLICY_DENIED');
  });

  it('files that are written belong to the desktop user (uid 1000), wherever it may write', async () => {
    await put('home file', 'owned/by/user.txt', 'ok');
    await put('/tmp file', '/tmp/owned-by-user.txt', 'ok');
    await attempt('put with mode', 'vm_put_file', { path: 'owned/script.sh', content: '#!/bin/sh\n', mode: '755' }, 'ok');
    assert.equal(await asRoot(`stat -c '%u:%g %a' ${H}/owned ${H}/owned/by ${H}/owned/by/user.txt /tmp/owned-by-user.txt ${H}/owned/script.sh`), '1000:1000 755\n1000:1000 755\n1000:1000 644\n1000:1000 644\n1000:1000 755\n');
  });

  it('a clone is unpacked as the user: owned by uid 1000, refused into /root', async (t: TestContext) => {
    const url = repo!.url;
    const home = await attempt('clone into home', 'vm_clone_repo', { url, dest: 'cloned' });
    if (home.isError && home.structuredContent.code === 'POLICY_DENIED' && !/permission denied/.test(home.structuredContent.message)) {
      t.skip(`the server's clone policy refuses this loopback URL: ${home.structuredContent.message}`);
      return;
    }
    assert.equal(home.isError, undefined, JSON.stringify(home.structuredContent));
    assert.equal(await asRoot(`find ${H}/cloned -not -user 1000 | wc -l; cat ${H}/cloned/README.md`), '0\nrepo\n');
    await attempt('clone into /root', 'vm_clone_repo', { url, dest: '/root/cloned' }, 'POLICY_DENIED');
    await attempt('clone through rootlink', 'vm_clone_repo', { url, dest: 'rootlink/cloned' }, 'POLICY_DENIED');
  });

  it('nothing outside the user\'s rights changed; the figures', async (t: TestContext) => {
    assert.equal(await fingerprint(), before, '/root, /etc/shadow, /etc/passwd and /srv/private are as they were');
    const health = await s.call('vm_exec', { lease_id: lease, command: ['echo', 'still serving'] });
    assert.equal(health.structuredContent?.stdout, 'still serving\n', 'the lease still serves');
    t.diagnostic(`attempts ${tally.attempts}: ok ${tally.ok}, typed errors ${JSON.stringify(tally.typed)}, INTERNAL ${tally.internal}, leaks ${tally.leaks}`);
    assert.equal(tally.internal, 0);
    assert.equal(tally.leaks, 0);
  });
});
