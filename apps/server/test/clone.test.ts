// vm_clone_repo policy and host-held credentials, against a git server on loopback that demands
// HTTP Basic auth (git's "dumb" HTTP protocol: static files of a bare repository).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { checkCloneUrl } from '../src/clone.ts';
import { credentialFor } from '../src/clone/credentials.ts';
import { gitPlan } from '../src/clone/git-plan.ts';
import { resolveCloneTarget } from '../src/clone/policy.ts';
import { connect, errorCode, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';

const run = promisify(execFile);
const TOKEN = 'sekret-token-4242';
const dir = mkdtempSync(join(tmpdir(), 'vmhub-clone-'));
let server: Server;
let port = 0;
const seenAuth: string[] = [];

before(async () => {
  const work = join(dir, 'work');
  const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  await run('git', ['init', '-q', '-b', 'main', work]);
  writeFileSync(join(work, 'hello.txt'), 'hello from a private repo\n');
  await run('git', ['-C', work, 'add', '.'], { env });
  await run('git', ['-C', work, 'commit', '-qm', 'init'], { env });
  await run('git', ['clone', '-q', '--bare', work, join(dir, 'private.git')]);
  await run('git', ['-C', join(dir, 'private.git'), 'update-server-info']);
  server = createServer((req, res) => {
    seenAuth.push(req.headers.authorization ?? '');
    if (req.headers.authorization !== `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const path = normalize(join(dir, decodeURIComponent(new URL(req.url!, 'http://x').pathname)));
    try {
      if (!path.startsWith(dir) || !statSync(path).isFile()) throw new Error('no');
      res.writeHead(200).end(readFileSync(path));
    } catch { res.writeHead(404).end(); }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
after(() => { server.close(); rmSync(dir, { recursive: true, force: true }); });

describe('server: vm_clone_repo', () => {
  let box: Sandbox;
  let s: Session;
  before(async () => {
    box = sandbox({ clone: { allowed_schemes: ['http', 'https'], allow_private_hosts: true } }, [
      { id: 'fake-desktop', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g', provider_options: { ready_delay_ms: 50 } },
      { id: 'fake-with-creds', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g', provider_options: { ready_delay_ms: 50 }, clone_credentials: { '127.0.0.1': { token_env: 'VMHUB_TEST_GIT_TOKEN' } } },
    ]);
    s = await connect(box, { VMHUB_TEST_GIT_TOKEN: TOKEN });
  });
  after(async () => { await s.close(); box.cleanup(); });

  it('clones with the template\'s host-held token; the token never reaches arguments, results or the guest', async () => {
    const lease = (await waitReady(s, (await s.call('vm_lease_create', { template: 'fake-with-creds' })).structuredContent.lease_id)).lease_id;
    const r = await s.call('vm_clone_repo', { lease_id: lease, url: `http://127.0.0.1:${port}/private.git`, dest: 'repo' });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    assert.ok(!JSON.stringify(r).includes(TOKEN), 'the result carries no token');
    const hello = await s.call('vm_get_file', { lease_id: lease, path: 'repo/hello.txt' });
    assert.equal(hello.structuredContent.content, 'hello from a private repo\n');
    const gitConfig = await s.call('vm_get_file', { lease_id: lease, path: 'repo/.git/config' });
    assert.ok(gitConfig.structuredContent.content.includes(`127.0.0.1:${port}/private.git`));
    assert.ok(!gitConfig.structuredContent.content.includes(TOKEN) && !gitConfig.structuredContent.content.includes('extraHeader'), 'no credential in the clone');
    assert.ok(seenAuth.some((a) => a.startsWith('Basic ')), 'the server saw the credential');
  });

  it('without credentials the private repository is refused with a typed error', async () => {
    const lease = (await waitReady(s, (await s.call('vm_lease_create', { template: 'fake-desktop' })).structuredContent.lease_id)).lease_id;
    const r = await s.call('vm_clone_repo', { lease_id: lease, url: `http://127.0.0.1:${port}/private.git` });
    assert.ok(['INVALID_REQUEST', 'NOT_FOUND', 'POLICY_DENIED'].includes(errorCode(r)!), JSON.stringify(r.structuredContent));
    assert.ok(!r.structuredContent.message.includes(TOKEN));
  });
});

describe('server: clone URL policy', () => {
  const policy = { allowed_schemes: ['https', 'ssh', 'git'], allowed_hosts: [], allow_file: false, allow_private_hosts: false, credentials: {}, timeout_seconds: 1, max_bytes: 1 };
  it('accepts public https, ssh and scp-style URLs', () => {
    assert.deepEqual(checkCloneUrl('https://github.com/a/b.git', policy), { scheme: 'https', host: 'github.com' });
    assert.deepEqual(checkCloneUrl('git@github.com:a/b.git', policy), { scheme: 'ssh', host: 'github.com' });
  });
  it('refuses file URLs, local paths, private hosts, other schemes, hosts off the list, embedded credentials and option injection', () => {
    for (const url of ['file:///etc', '/etc', './x', '~/x']) assert.throws(() => checkCloneUrl(url, policy), /file:\/\/ and local paths are refused/);
    for (const url of ['https://127.0.0.1/r', 'https://localhost/r', 'https://10.1.2.3/r', 'https://192.168.1.1/r', 'https://[::1]/r']) assert.throws(() => checkCloneUrl(url, policy), /loopback or private/, url);
    assert.throws(() => checkCloneUrl('ftp://example.com/r', policy), /scheme "ftp" is not allowed/);
    assert.throws(() => checkCloneUrl('https://evil.example/r', { ...policy, allowed_hosts: ['github.com'] }), /host "evil.example" is not allowed/);
    assert.throws(() => checkCloneUrl('https://u:p@github.com/r', policy), /must not carry credentials/);
    assert.throws(() => checkCloneUrl('--upload-pack=x', policy), /must not start with "-"/);
    assert.throws(() => checkCloneUrl('ext::sh -c touch% /tmp/pwn', policy));
  });
});

describe('server: clone guard decides on addresses', () => {
  const policy = { allowed_schemes: ['https', 'http', 'ssh', 'git'], allowed_hosts: [], allow_file: false, allow_private_hosts: false, credentials: {}, timeout_seconds: 1, max_bytes: 1 };
  it('reads every numeric spelling of an address as the resolver does, and judges the address', () => {
    for (const host of ['127.1', '0x7f.1', '2130706433', '0177.0.0.1', '127.0.0.1.', '[::ffff:127.0.0.1]', '[::1]', '0.0.0.0', '169.254.169.254', '[fc00::1]', '[fe80::1]', '10.1.1.1', '172.20.0.1', '192.168.0.1', '100.64.0.1']) {
      for (const url of [`git://${host}:9418/r`, `http://${host}/r`, `git@${host}:r`]) assert.throws(() => checkCloneUrl(url, policy), (e: any) => e.code === 'POLICY_DENIED', url);
    }
    for (const url of ['https://localhost./r', 'https://foo.localhost/r', 'ssh://git@LOCALHOST/r']) assert.throws(() => checkCloneUrl(url, policy), /loopback or private name/, url);
    assert.deepEqual(checkCloneUrl('git://8.8.8.8/r', policy), { scheme: 'git', host: '8.8.8.8' });
    assert.deepEqual(checkCloneUrl('HTTPS://GitHub.COM./a/b', policy), { scheme: 'https', host: 'github.com' });
    assert.deepEqual(checkCloneUrl('git://0x7f.1/r', { ...policy, allow_private_hosts: true }), { scheme: 'git', host: '127.0.0.1' });
    assert.throws(() => checkCloneUrl('http://0.0.0.0/r', { ...policy, allow_private_hosts: true }), /never connects to unspecified/);
  });
  it('judges IPv4 inside IPv6 by the IPv4 address: translated (::ffff:0:0:0/96), NAT64 (64:ff9b::/96), compatible (::/96), mapped', async () => {
    const embedded: Record<string, [string, string]> = { '127.0.0.1': ['7f00:1', 'loopback'], '10.0.0.1': ['a00:1', 'private'], '169.254.169.254': ['a9fe:a9fe', 'link-local'] };
    for (const [v4, [hex, range]] of Object.entries(embedded)) {
      const spellings = [
        `::ffff:0:${v4}`, `::ffff:0:${hex}`, `0:0:0:0:ffff:0:${hex}`, `::FFFF:0:${v4}`, `0::ffff:0:${v4}`,
        `64:ff9b::${v4}`, `64:ff9b::${hex}`, `64:ff9b:0:0:0:0:${hex}`, `64:FF9B::${hex.toUpperCase()}`,
        `::${v4}`, `::${hex}`, `0:0:0:0:0:0:${v4}`,
        `::ffff:${v4}`, `::ffff:${hex}`,
      ];
      for (const address of spellings) {
        for (const url of [`git://[${address}]:9418/r`, `http://[${address}]/r`, `git@[${address}]:r`]) {
          assert.throws(() => checkCloneUrl(url, policy), (e: any) => e.code === 'POLICY_DENIED' && e.message.includes(range) && e.message.includes(v4), url);
        }
        await assert.rejects(resolveCloneTarget('https://embedded.example/r', policy, async () => [address], 1000), (e: any) => e.code === 'POLICY_DENIED' && e.message.includes(range), `resolves to ${address}`);
      }
    }
    // Embedded unspecified and multicast stay refused with allow_private_hosts; embedded public addresses pass (compatible ones are never global).
    const open = { ...policy, allow_private_hosts: true };
    for (const address of ['::ffff:0:0.0.0.0', '::ffff:0:224.0.0.1', '64:ff9b::e000:1', '::224.0.0.1']) assert.throws(() => checkCloneUrl(`http://[${address}]/r`, open), /never connects/, address);
    for (const address of ['::ffff:0:8.8.8.8', '64:ff9b::808:808']) assert.ok(checkCloneUrl(`http://[${address}]/r`, policy), address);
    assert.throws(() => checkCloneUrl('http://[::8.8.8.8]/r', policy), /IPv4-compatible \(deprecated\) 8\.8\.8\.8/);
  });
  it('refuses authorities parsers disagree on, instead of guessing', () => {
    for (const url of ['git://%31%32%37.0.0.1/r', 'http://a#@127.0.0.1/r', 'http://a\\@127.0.0.1/r', 'http://[::1%25lo]/r', 'git://x.0x7f/r', 'http://1.2.3.4.5/r', 'http://h:0/r', 'http://h', 'fd::x']) {
      assert.throws(() => checkCloneUrl(url, policy), (e: any) => ['INVALID_REQUEST', 'POLICY_DENIED'].includes(e.code), url);
    }
  });
  it('checks every resolved address, and refuses names that do not resolve', async () => {
    await assert.rejects(resolveCloneTarget('https://two.example/r', policy, async () => ['93.184.216.34', '10.0.0.5'], 1000), /resolves to 10\.0\.0\.5 \(private\)/);
    await assert.rejects(resolveCloneTarget('https://mapped.example/r', policy, async () => ['::ffff:7f00:1'], 1000), /loopback/);
    await assert.rejects(resolveCloneTarget('https://none.example/r', policy, async () => { throw Object.assign(new Error('x'), { code: 'ENOTFOUND' }); }, 1000), (e: any) => e.code === 'NOT_FOUND');
    const t = await resolveCloneTarget('https://ok.example/r', policy, async () => ['93.184.216.34', '2606:2800::1', '93.184.216.34'], 1000);
    assert.deepEqual(t.addresses, ['93.184.216.34', '2606:2800::1']);
  });
});

describe('server: clone credentials are scoped to one origin', () => {
  const policy = { allowed_schemes: ['https', 'http'], allowed_hosts: [], allow_file: false, allow_private_hosts: false, credentials: {}, timeout_seconds: 1, max_bytes: 1 };
  const env = { T1: 'tok-one', T2: 'tok-two' };
  it('host keys match the host on any port, origin keys only their origin; the header is keyed by the origin and never in the URL', async () => {
    const lookup = async () => ['93.184.216.34'];
    const target = (url: string) => resolveCloneTarget(url, policy, lookup, 1000);
    const creds = { 'GitHub.com': { token_env: 'T1' }, 'https://git.example:8443': { token_env: 'T2' } };
    const gh = credentialFor(await target('https://github.com/a/b'), {}, creds, env)!;
    assert.equal(gh.origin, 'https://github.com');
    assert.equal(gh.header, `Authorization: Basic ${Buffer.from('x-access-token:tok-one').toString('base64')}`);
    assert.equal(credentialFor(await target('https://github.com:444/a/b'), {}, creds, env)?.origin, 'https://github.com:444');
    assert.equal(credentialFor(await target('https://github.com:444/a/b'), {}, creds, env, true), undefined, 'a redirect to another origin gets no host-key credential');
    assert.equal(credentialFor(await target('https://git.example:8443/r'), {}, creds, env)?.origin, 'https://git.example:8443');
    assert.equal(credentialFor(await target('https://git.example/r'), {}, creds, env), undefined);
    assert.equal(credentialFor(await target('http://git.example:8443/r'), {}, creds, env), undefined);
    assert.equal(credentialFor(await target('https://other.example/r'), {}, creds, env), undefined);
    assert.equal(credentialFor(await target('https://github.com/a'), { 'github.com': { token_env: 'T2' } }, creds, env)?.header.endsWith(Buffer.from('x-access-token:tok-two').toString('base64')), true, 'the template wins');
    assert.throws(() => credentialFor({ url: { form: 'url', scheme: 'https', transport: 'curl', host: 'github.com', path: '/' }, port: 443, addresses: [] }, {}, creds, {}), /T1, which is not set/);
    const plan = gitPlan(await target('https://github.com/a/b'), gh);
    assert.equal(plan.url, 'https://github.com/a/b');
    const config = Object.fromEntries(Array.from({ length: Number(plan.env.GIT_CONFIG_COUNT) }, (_, i) => [plan.env[`GIT_CONFIG_KEY_${i}`], plan.env[`GIT_CONFIG_VALUE_${i}`]]));
    assert.deepEqual(config, { 'http.followRedirects': 'false', 'http.curloptResolve': 'github.com:443:93.184.216.34', 'http.https://github.com/.extraHeader': gh.header });
  });
});
