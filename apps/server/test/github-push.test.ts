// Per-lease GitHub tokens end to end (issue 30.1), through the BUILT server on a real Docker
// debian-x11 lease whose network is the Docker bridge, against @vmhub/github-standin (GitHub's
// App endpoints checked against GitHub's OpenAPI description, JWTs verified, and a real
// `git http-backend` that takes a token only while it lives and only for its repository):
// - vm_clone_repo {push: true}: a token for that one repository; a commit pushed from inside the
//   guest lands; the same token is refused by another repository;
// - the token is nowhere it must not be: results, logs, audit, recordings, the store's file,
//   host /proc cmdline and environ, the guest's processes, the clone's .git/config;
// - bad input and GitHub's refusals are typed, and leave nothing in the guest;
// - release revokes (the git server refuses the token after), and so does the reaper for a lease
//   whose server was SIGKILLed and which was left to expire.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { goldenImageTag } from '@vmhub/provider-docker';
import { makeAppKeyPair, startGithubStandin, type GithubStandin } from '@vmhub/github-standin';
import { until } from '@vmhub/test-kit';
import { connect, leaseReady, machineBox, type MachineBox, type Session } from './harness.ts';

const run = promisify(execFile);
const REAPER = fileURLToPath(new URL('../../reaper/dist/bin.js', import.meta.url));
const APP_ID = 4242;
const keys = makeAppKeyPair();

let gh: GithubStandin;
/** Every tool result any session here got, for the leak check. */
const results: string[] = [];

/**
 * The host's address on Docker's default bridge, where a container reaches the stand-in: IPAM's
 * gateway, or the bridge interface's own IPv4 address when the engine leaves the gateway out of
 * IPAM (a freshly started docker.io 20.10 here listed only the subnet).
 */
async function bridgeGateway(): Promise<string> {
  const { stdout } = await run('docker', ['network', 'inspect', 'bridge', '--format', '{{range .IPAM.Config}}{{.Gateway}}{{end}}|{{index .Options "com.docker.network.bridge.name"}}']);
  const [gateway, name] = stdout.trim().split('|');
  if (gateway) return gateway;
  // Not os.networkInterfaces(): it leaves out an interface without carrier (a bridge with no
  // container attached yet).
  const dev = name || 'docker0';
  const links = JSON.parse((await run('ip', ['-j', '-4', 'addr', 'show', 'dev', dev])).stdout) as Array<{ addr_info?: Array<{ local?: string }> }>;
  const v4 = links[0]?.addr_info?.find((a) => a.local)?.local;
  assert.ok(v4, `Docker's bridge has no gateway in IPAM and no IPv4 address on ${dev}`);
  return v4;
}

function configure(box: MachineBox, extra: Record<string, unknown> = {}, standin = gh, app: Record<string, unknown> = {}): void {
  const keyFile = join(box.dir, 'app.pem');
  writeFileSync(keyFile, keys.privateKeyPem, { mode: 0o600 });
  box.write({
    github_app: { app_id: APP_ID, private_key_file: keyFile, api_url: standin.apiUrl, ...app },
    clone: { allowed_schemes: ['http', 'https'], allow_private_hosts: true },
    audit: { file: join(box.dir, 'audit.jsonl') },
    providers: { docker: { framebuffer: false } },
    templates: [{ id: 'gh-x11', provider: 'docker', adapter: 'x11', os: 'linux', golden: goldenImageTag('debian-x11'), description: 'debian-x11 on the Docker bridge', provider_options: { network: 'bridge' }, ready_timeout_seconds: 90 }],
    ...extra,
  });
}

async function call(s: Session, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await s.call(name, args);
  results.push(JSON.stringify(r));
  return r;
}

async function exec(s: Session, lease: string, shell: string): Promise<{ exit_code: number; stdout: string; stderr: string }> {
  const r = await call(s, 'vm_exec', { lease_id: lease, shell, timeout_seconds: 60 });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
  return r.structuredContent;
}

/** A push from THIS host with `token` (through a credential-store file, not argv): git's exit code and stderr. */
async function hostPush(repo: string, token: string): Promise<{ code: number; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-ghpush-'));
  try {
    const git = (...args: string[]) => run('git', ['-C', join(dir, 'w'), ...args], { env: { PATH: process.env.PATH, HOME: dir, GIT_TERMINAL_PROMPT: '0' } });
    await run('git', ['init', '-q', '-b', 'main', join(dir, 'w')]);
    await git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'from the host');
    writeFileSync(join(dir, 'cred'), `${new URL(gh.baseUrl).protocol}//x-access-token:${encodeURIComponent(token)}@${new URL(gh.baseUrl).host}\n`, { mode: 0o600 });
    try {
      await git('-c', `credential.helper=store --file=${join(dir, 'cred')}`, 'push', '-q', gh.gitUrl(repo), `HEAD:refs/heads/host-${Date.now()}`);
      return { code: 0, stderr: '' };
    } catch (err) {
      return { code: (err as { code: number }).code, stderr: String((err as { stderr?: string }).stderr) };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Files under `dir` (recursively) whose bytes contain `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    if (readFileSync(p).includes(needle)) hits.push(p);
  }
  return hits;
}

/** Host processes whose cmdline or environ holds `needle`. */
function processesHolding(needle: string): string[] {
  const hits: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    for (const what of ['cmdline', 'environ']) {
      try {
        if (readFileSync(`/proc/${pid}/${what}`).includes(needle)) hits.push(`${pid}/${what}`);
      } catch { /* gone, or not ours to read */ }
    }
  }
  return hits;
}

before(async () => {
  gh = await startGithubStandin({
    app: { id: APP_ID, publicKeyPem: keys.publicKeyPem },
    installations: [{ id: 77, account: 'acme', repositories: ['acme/app', 'acme/other'] }],
    host: await bridgeGateway(),
  });
  for (const r of ['acme/app', 'acme/other', 'solo/lonely']) await gh.createRepo(r);
});
after(async () => { await gh?.close(); });

describe('github: a token minted for one lease and one repository', () => {
  const box = machineBox('ghpush', 'gp');
  let s: Session;
  let lease = '';
  let token = '';

  before(async () => {
    configure(box);
    s = await connect(box);
    await leaseReady(s, { template: 'gh-x11', ttl_seconds: 900 }, 120, (id) => { lease = id; });
  });
  after(() => box.end(s, [lease]));

  it('push: true clones with a token for that repository only; a commit pushed from inside the guest lands', async () => {
    const r = await call(s, 'vm_clone_repo', { lease_id: lease, url: gh.gitUrl('acme/app'), push: true });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    assert.equal(r.structuredContent.dest, '/home/user/app');
    assert.equal(gh.tokens.length, 1);
    const t = gh.tokens[0]!;
    token = t.token;
    assert.deepEqual(t.repositories, ['acme/app'], 'down-scoped to the one repository');
    assert.equal(t.permissions.contents, 'write');
    assert.equal(t.permissions.pull_requests, undefined, 'no pull_requests unless the template asks');
    const pushed = await exec(s, lease, 'cd app && echo change > CHANGE.txt && git add CHANGE.txt && git -c user.name=agent -c user.email=agent@vmhub commit -qm "from the guest" && git push -q origin HEAD:main 2>&1; echo "exit=$?"');
    assert.match(pushed.stdout, /exit=0/, pushed.stdout + pushed.stderr);
    const landed = gh.pushes.find((p) => p.repo === 'acme/app' && p.ref === 'refs/heads/main');
    assert.ok(landed, `the push reached the git server: ${JSON.stringify(gh.pushes)}`);
    const head = (await exec(s, lease, 'git -C app rev-parse HEAD')).stdout.trim();
    assert.equal(landed.newSha, head);
    const file = await exec(s, lease, 'stat -c "%a %U" .config/vmhub/git-credentials/*');
    assert.match(file.stdout.trim(), /^600 user$/, 'the credential file is the lease user\'s alone');
  });

  it('another repository refuses the same token', async () => {
    const other = await hostPush('acme/other', token);
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /40[34]|not found/i, other.stderr);
    assert.equal((await hostPush('acme/app', token)).code, 0, 'while the same token still pushes to its own repository');
  });

  it('the token is in no result, log, audit line, recording, store file, host process, guest process or .git/config', async () => {
    const config = await call(s, 'vm_get_file', { lease_id: lease, path: 'app/.git/config' });
    assert.ok(config.structuredContent.content.includes(`[credential "${gh.gitUrl('acme/app')}"]`), config.structuredContent.content);
    assert.ok(!config.structuredContent.content.includes(token));
    const guestProcs = await exec(s, lease, 'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; tr "\\0" " " < $p/environ 2>/dev/null; echo; done');
    assert.ok(guestProcs.stdout.length > 100 && !guestProcs.stdout.includes(token), 'no guest process carries it in argv or environment');
    results.pop(); // that result lists processes only; it is checked above
    assert.deepEqual(results.filter((x) => x.includes(token)), [], 'no tool result');
    assert.ok(!s.stderr().includes(token), 'no log line');
    assert.deepEqual(filesHolding(box.dir, token), [], 'no file of the state dir: store (and WAL), audit, recordings, logs');
    assert.ok(readFileSync(join(box.dir, 'audit.jsonl'), 'utf8').includes('vm_clone_repo'), 'the audit file was written');
    assert.deepEqual(processesHolding(token), [], 'no host process cmdline or environ');
    assert.equal(statSync(join(box.dir, 'secrets.key')).mode & 0o777, 0o600);
  });

  it('GitHub\'s refusals and bad input are typed, and leave nothing in the guest', async () => {
    const before = gh.tokens.length;
    const cases: Array<[Record<string, unknown>, string, RegExp, (() => void)?]> = [
      [{ url: 'https://gitlab.com/acme/app.git' }, 'INVALID_REQUEST', /push: true needs a repository on 172\.17/],
      [{ url: `ssh://git@${new URL(gh.baseUrl).host}/acme/app.git` }, 'INVALID_REQUEST', /URLs cannot carry the token/],
      [{ url: gh.gitUrl('solo/lonely') }, 'CAPABILITY_UNAVAILABLE', /not installed on solo\/lonely/],
      [{ url: gh.gitUrl('acme/app') }, 'PROVISION_FAILED', /GitHub refused finding .* 401/, () => gh.failNext('lookup', 401)],
      [{ url: gh.gitUrl('acme/app') }, 'PROVISION_FAILED', /GitHub refused minting .* 403/, () => gh.failNext('mint', 403, 'Resource not accessible by integration')],
      [{ url: gh.gitUrl('acme/app') }, 'PROVISION_FAILED', /422/, () => gh.failNext('mint', 422)],
      [{ url: gh.gitUrl('acme/app') }, 'PROVISION_FAILED', /500/, () => gh.failNext('mint', 500)],
    ];
    for (const [args, code, message, arrange] of cases) {
      arrange?.();
      const r = await call(s, 'vm_clone_repo', { lease_id: lease, dest: 'refused', push: true, ...args });
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.equal(r.structuredContent.code, code, JSON.stringify(r.structuredContent));
      assert.match(r.structuredContent.message, message);
    }
    assert.equal(gh.tokens.length, before, 'no token was minted by a refused call');
    // A clone that fails after the mint: that token is revoked at once.
    const bad = await call(s, 'vm_clone_repo', { lease_id: lease, url: gh.gitUrl('acme/other'), ref: 'no-such-branch', dest: 'refused', push: true });
    assert.equal(bad.isError, true);
    assert.equal(gh.tokens.length, before + 1);
    await until(() => gh.tokens[before]!.revokedAt, 'the unused token revoked', 10_000);
    const left = await exec(s, lease, 'ls -d refused 2>&1; ls .config/vmhub/git-credentials');
    assert.match(left.stdout, /No such file/);
    assert.doesNotMatch(left.stdout, /other/, 'no credential for the failed clone');
    assert.deepEqual(gh.schemaViolations, []);
    assert.deepEqual(gh.requestViolations, []);
  });

  it('release revokes: the git server refuses the token, and the stand-in recorded the revocation', async () => {
    const r = await call(s, 'vm_lease_release', { lease_id: lease });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    assert.ok(gh.tokens[0]!.revokedAt, 'revoked by the time release answered');
    assert.ok(gh.revocations.some((v) => v.index === 0));
    const refused = await hostPush('acme/app', token);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /401|403|Authentication failed/, refused.stderr);
    lease = '';
  });
});

describe('github: a lease renewed past its token\'s hour gets a fresh one before it lapses', () => {
  const box = machineBox('ghrenew', 'gn');
  let s: Session;
  let lease = '';
  // Tokens live 80 s here and are replaced 77 s before they lapse (3 s after the mint): a 60 s lease ends first.
  // They are GitHub's announced stateless kind (~520 characters): the guest pushes with one.
  let short: GithubStandin;

  before(async () => {
    short = await startGithubStandin({ app: { id: APP_ID, publicKeyPem: keys.publicKeyPem }, installations: [{ id: 78, account: 'acme', repositories: ['acme/app'] }], host: await bridgeGateway(), tokenTtlMs: 80_000, longTokens: true });
    await short.createRepo('acme/app');
    configure(box, {}, short, { refresh_before_seconds: 77 });
    s = await connect(box);
    await leaseReady(s, { template: 'gh-x11', ttl_seconds: 60 }, 120, (id) => { lease = id; });
  });
  after(async () => { await box.end(s, [lease]); await short?.close(); });

  it('no refresh while the lease ends first; after a renew past the token\'s end, a fresh token is installed and the old one revoked', async () => {
    const r = await call(s, 'vm_clone_repo', { lease_id: lease, url: short.gitUrl('acme/app'), push: true });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    await new Promise((done) => setTimeout(done, 4500));
    assert.equal(short.tokens.length, 1, 'the refresh time passed, but the lease (60 s) ends before its token (80 s): no refresh');
    const renewed = await call(s, 'vm_lease_renew', { lease_id: lease, ttl_seconds: 600 });
    assert.equal(renewed.isError, undefined, JSON.stringify(renewed.structuredContent));
    await until(() => short.tokens[1] && short.tokens[0]!.revokedAt, 'a second token minted and the first revoked', 20_000);
    assert.deepEqual(short.tokens[1]!.repositories, ['acme/app']);
    assert.ok(short.tokens[1]!.token.length > 400, `a long token: ${short.tokens[1]!.token.length} characters`);
    const pushed = await exec(s, lease, 'cd app && git -c user.name=a -c user.email=a@v commit -q --allow-empty -m after-refresh && git push -q origin HEAD:main 2>&1; echo "exit=$?"');
    assert.match(pushed.stdout, /exit=0/, `the guest pushes with the fresh token: ${pushed.stdout}`);
    assert.equal(short.pushes.length, 1);
    const creds = await exec(s, lease, 'ls .config/vmhub/git-credentials | wc -l');
    assert.equal(creds.stdout.trim(), '1', 'the fresh token replaced the old one in the same file');
    assert.ok(!s.stderr().includes(short.tokens[1]!.token));
  });
});

describe('github: the reaper revokes for a server that was SIGKILLed', () => {
  const box = machineBox('ghreap', 'gr');
  let s: Session | undefined;
  let lease = '';

  after(() => box.end(s, [lease]));

  it('a lease left to expire after its server died: the reaper revokes its token without the App key', async () => {
    configure(box);
    s = await connect(box);
    await leaseReady(s, { template: 'gh-x11', ttl_seconds: 60 }, 120, (id) => { lease = id; });
    const before = gh.tokens.length;
    const r = await call(s, 'vm_clone_repo', { lease_id: lease, url: gh.gitUrl('acme/other'), push: true });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    const t = gh.tokens[before]!;
    process.kill(s.pid!, 'SIGKILL');
    s = undefined;
    // The reaper runs without the App: its config has no github_app and the key file is gone.
    rmSync(join(box.dir, 'app.pem'));
    const expires = JSON.parse((await run(process.execPath, [REAPER, '--once', '--json'], { env: { ...process.env, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error' } })).stdout);
    assert.equal(t.revokedAt, undefined, `not revoked while the lease lives: ${JSON.stringify(expires)}`);
    await until(async () => {
      await run(process.execPath, [REAPER, '--once', '--json'], { env: { ...process.env, VMHUB_CONFIG: box.configFile, VMHUB_LOG_LEVEL: 'error' } });
      return t.revokedAt;
    }, 'the reaper revoked the token', 120_000, 5_000);
    assert.notEqual((await hostPush('acme/other', t.token)).code, 0, 'the git server refuses it');
    lease = '';
  });
});
