/**
 * The git half with a real git client against the real git http-backend: clone, commit, push
 * with an installation token given through GIT_ASKPASS (never in the URL, credential helpers
 * off), and every refusal: no credentials, another repository, revoked, expired, read-only.
 * Needs git (Debian's package has /usr/lib/git-core/git-http-backend).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { GithubStandin } from '../src/index.ts';
import { api, gitClient, mint, standin, type GitClient } from './helpers.ts';

const run = promisify(execFile);

describe('github-standin: git smart HTTP', () => {
  let s: GithubStandin;
  let client: GitClient;
  let widgetsHead: string;

  before(async () => {
    s = await standin();
    client = await gitClient();
    widgetsHead = (await s.createRepo('acme/widgets', { files: { 'README.md': '# widgets\n', 'src/main.txt': 'hello\n' } })).headSha;
    await s.createRepo('acme/gadgets');
  });
  after(async () => {
    await s.close();
    client.dir.cleanup();
  });

  const bareHead = async (repo: string, ref = 'main') =>
    (await run('git', ['--git-dir', join(s.gitRoot, `${repo}.git`), 'rev-parse', ref], { env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: client.dir.path } })).stdout.trim();

  it('gitUrl is <baseUrl>/<owner>/<repo>.git and createRepo made a bare repo with one commit on main', async () => {
    assert.equal(s.gitUrl('acme/widgets'), `http://127.0.0.1:${s.port}/acme/widgets.git`);
    assert.equal(await bareHead('acme/widgets'), widgetsHead);
    assert.deepEqual(s.pushes, [], 'the initial commit is not a push');
  });

  it('clone + commit + push with a token scoped to the repository', async () => {
    const token = await mint(s, ['widgets'], { contents: 'write' });
    const clone = await client.git(['clone', s.gitUrl('acme/widgets'), 'widgets'], { token });
    assert.equal(clone.code, 0, clone.stderr);
    const work = join(client.dir.path, 'widgets');
    assert.equal((await client.git(['rev-parse', 'HEAD'], { cwd: work })).stdout.trim(), widgetsHead);
    const remote = (await client.git(['remote', 'get-url', 'origin'], { cwd: work })).stdout.trim();
    assert.equal(remote, s.gitUrl('acme/widgets'), 'no credentials in the URL');

    await writeFile(join(work, 'change.txt'), 'from the test\n');
    await client.git(['add', 'change.txt'], { cwd: work });
    assert.equal((await client.git(['commit', '-q', '-m', 'a change'], { cwd: work })).code, 0);
    const sha = (await client.git(['rev-parse', 'HEAD'], { cwd: work })).stdout.trim();
    const push = await client.git(['push', 'origin', 'HEAD:main'], { cwd: work, token });
    assert.equal(push.code, 0, push.stderr);
    assert.equal(await bareHead('acme/widgets'), sha);
    assert.deepEqual(s.pushes.map(({ at: _, ...p }) => p), [{ repo: 'acme/widgets', ref: 'refs/heads/main', oldSha: widgetsHead, newSha: sha }]);

    const branch = await client.git(['push', 'origin', 'HEAD:refs/heads/feature'], { cwd: work, token });
    assert.equal(branch.code, 0, branch.stderr);
    assert.deepEqual(s.pushes.at(-1)?.ref, 'refs/heads/feature');
    assert.match(s.pushes.at(-1)!.oldSha, /^0{40}$/);

    const ops = s.requests.filter((r) => r.repo === 'acme/widgets').map((r) => `${r.operation} ${r.status}`);
    assert.ok(ops.includes('git-upload-pack 401'), 'git asked without credentials first and got the challenge');
    assert.ok(ops.includes('git-receive-pack 200'));
    assert.ok(!JSON.stringify(s.requests).includes(token), 'the token is not in the request log');
  });

  it('no credentials: 401 with WWW-Authenticate: Basic realm="GitHub"', async () => {
    const r = await fetch(`${s.gitUrl('acme/widgets')}/info/refs?service=git-upload-pack`);
    assert.equal(r.status, 401);
    assert.equal(r.headers.get('www-authenticate'), 'Basic realm="GitHub"');
    const failed = await client.git(['ls-remote', s.gitUrl('acme/widgets')], { token: '' });
    assert.notEqual(failed.code, 0);
  });

  it('the same token cannot push to (or read) another repository: 404', async () => {
    const token = await mint(s, ['widgets']);
    const before = s.pushes.length;
    const work = join(client.dir.path, 'widgets');
    const push = await client.git(['push', s.gitUrl('acme/gadgets'), 'HEAD:refs/heads/main'], { cwd: work, token });
    assert.notEqual(push.code, 0);
    assert.match(push.stderr, /not found|404/i);
    assert.equal(s.pushes.length, before);
    const lsRemote = await client.git(['ls-remote', s.gitUrl('acme/gadgets')], { token });
    assert.notEqual(lsRemote.code, 0);
    const last = s.requests.filter((r) => r.repo === 'acme/gadgets').at(-1);
    assert.equal(last?.status, 404);
  });

  it('a revoked token is refused: 401', async () => {
    const token = await mint(s, ['widgets']);
    assert.equal((await api(s, 'DELETE', '/installation/token', { auth: `token ${token}` })).status, 204);
    const before = s.pushes.length;
    const push = await client.git(['push', 'origin', 'HEAD:refs/heads/after-revoke'], { cwd: join(client.dir.path, 'widgets'), token });
    assert.notEqual(push.code, 0);
    assert.match(push.stderr, /Authentication failed|401/i);
    assert.equal(s.pushes.length, before);
  });

  it('an expired token is refused: 401', async () => {
    const token = await mint(s, ['widgets']);
    s.expire(token);
    const push = await client.git(['push', 'origin', 'HEAD:refs/heads/after-expiry'], { cwd: join(client.dir.path, 'widgets'), token });
    assert.notEqual(push.code, 0);
    assert.match(push.stderr, /Authentication failed|401/i);
    const fetched = await client.git(['ls-remote', s.gitUrl('acme/widgets')], { token });
    assert.notEqual(fetched.code, 0, 'fetching is refused too');
  });

  it('a contents:read token clones but cannot push: 403', async () => {
    const token = await mint(s, ['widgets'], { contents: 'read' });
    const ls = await client.git(['ls-remote', s.gitUrl('acme/widgets')], { token });
    assert.equal(ls.code, 0, ls.stderr);
    const push = await client.git(['push', 'origin', 'HEAD:refs/heads/read-only'], { cwd: join(client.dir.path, 'widgets'), token });
    assert.notEqual(push.code, 0);
    assert.match(push.stderr, /403|Write access to repository not granted/);
    const noContents = await mint(s, ['widgets'], { metadata: 'read' });
    assert.notEqual((await client.git(['ls-remote', s.gitUrl('acme/widgets')], { token: noContents })).code, 0, 'metadata alone cannot fetch');
  });

  it('a gzip-encoded, chunked upload-pack request reaches http-backend intact', async () => {
    const token = await mint(s, ['widgets'], { contents: 'read' });
    const head = await bareHead('acme/widgets');
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    const gz = gzipSync(Buffer.from(`${pkt(`want ${head}\n`)}0000${pkt('done\n')}`));
    const body = new ReadableStream({ start(c) { c.enqueue(gz.subarray(0, 10)); c.enqueue(gz.subarray(10)); c.close(); } });
    const r = await fetch(`${s.gitUrl('acme/widgets')}/git-upload-pack`, {
      method: 'POST', body, duplex: 'half',
      headers: { authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`, 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
    } as RequestInit);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/x-git-upload-pack-result');
    const out = Buffer.from(await r.arrayBuffer());
    assert.equal(out.subarray(0, 8).toString(), '0008NAK\n');
    assert.equal(out.subarray(8, 12).toString(), 'PACK');
  });

  it('no schema violations', () => {
    assert.deepEqual(s.schemaViolations, []);
  });
});

describe('github-standin: long (stateless-format) tokens', () => {
  let s: GithubStandin;
  let client: GitClient;

  before(async () => {
    s = await standin({ longTokens: true });
    client = await gitClient();
    await s.createRepo('acme/widgets');
  });
  after(async () => {
    await s.close();
    client.dir.cleanup();
  });

  it('a ~520-character ghs_<APPID>_<JWT> token works as the git password, clone and push', async () => {
    const token = await mint(s, ['widgets']);
    assert.match(token, /^ghs_4242_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.ok(token.length >= 480 && token.length <= 560, `length ${token.length}`);
    const clone = await client.git(['clone', s.gitUrl('acme/widgets'), 'w'], { token });
    assert.equal(clone.code, 0, clone.stderr);
    const work = join(client.dir.path, 'w');
    await client.git(['commit', '-q', '--allow-empty', '-m', 'long token push'], { cwd: work });
    const push = await client.git(['push', 'origin', 'HEAD:main'], { cwd: work, token });
    assert.equal(push.code, 0, push.stderr);
    assert.equal(s.pushes.length, 1);
    assert.equal((await api(s, 'DELETE', '/installation/token', { auth: `token ${token}` })).status, 204);
    assert.deepEqual(s.schemaViolations, []);
  });
});
