// Security suite for vm_clone_repo (issue 10, items 1 and 2), against the BUILT server through the
// SDK client, with real peers on loopback: git daemons, a dumb-HTTP and a smart-HTTP (git
// http-backend) server, and HTTP servers that redirect and record every Authorization header.
// Name resolution in the server is replaced by a test-only preload (NODE_OPTIONS --import, written
// below): it answers from a table, logs every lookup and, in the strict boxes, sends nothing to
// real DNS. git itself still resolves with the system resolver, so a clone that succeeds for a
// name only the preload knows shows that git connected to the address the policy checked.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { connect, errorCode, sandbox, waitReady, type Sandbox, type Session } from './harness.ts';
import { gitPlan, type GitPlan } from '../src/clone/git-plan.ts';
import { resolveCloneTarget } from '../src/clone/policy.ts';

const run = promisify(execFile);
const TOKEN = 'clone-token-7f3a9e';
const BASIC = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
const SECRET = `TOP-SECRET-${process.pid}-not-for-guests`;
const GOOD = 'the repository the checked address serves\n';
const dir = mkdtempSync(join(tmpdir(), 'vmhub-secclone-'));
const sshLog = join(dir, 'ssh.log');
const dnsLog = join(dir, 'dns.log');

/** Figures for docs/security.md. */
// attempts = typed refusals + clones served only by the checked address (pinned) + redirects
// followed through the policy; executed = a clone of something the policy should have refused.
const tally = { attempts: 0, typed: 0, policyDenied: 0, pinned: 0, followed: 0, crashes: 0, executed: 0, leaks: 0 };

interface Seen { host: string; path: string; auth: string }
const seen: Record<string, Seen[]> = { secretHttp: [], goodHttp: [], a: [], b1: [], b3: [] };
const tokenInArgv: string[] = [];
const children: ChildProcess[] = [];
const servers: Server[] = [];
let P = 0; // git daemons: 127.0.0.1 serves the secret, 127.0.0.2 the good repository, same port
let H = 0; // HTTP: 127.0.0.1 dumb secret, 127.0.0.2 smart good, same port
let RA = 0; // redirecting origin A (127.0.0.1), demands the token
let RB = 0; // redirect targets B on 127.0.0.1 and 127.0.0.3, same port

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', GIT_CONFIG_NOSYSTEM: '1', HOME: dir };

async function bareRepo(path: string, file: string, content: string): Promise<void> {
  const work = `${path}.work`;
  await run('git', ['init', '-q', '-b', 'main', work], { env: gitEnv });
  writeFileSync(join(work, file), content);
  await run('git', ['-C', work, 'add', '.'], { env: gitEnv });
  await run('git', ['-C', work, 'commit', '-qm', 'init'], { env: gitEnv });
  await run('git', ['clone', '-q', '--bare', work, path], { env: gitEnv });
  await run('git', ['-C', path, 'update-server-info'], { env: gitEnv });
}

/** A port free on every one of `hosts` (loopback aliases), so two peers can share it. */
async function sharedPort(hosts: string[]): Promise<number> {
  for (;;) {
    const taken: Array<ReturnType<typeof createNetServer>> = [];
    let port = 0;
    try {
      for (const host of hosts) {
        const srv = createNetServer();
        await new Promise<void>((resolve, reject) => { srv.once('error', reject).listen(port, host, () => resolve()); });
        taken.push(srv);
        port = (srv.address() as { port: number }).port;
      }
      return port;
    } catch { /* in use on one alias: try another */ } finally {
      await Promise.all(taken.map((s) => new Promise((r) => s.close(r))));
    }
  }
}

function daemon(base: string, host: string, port: number): Promise<{ log(): string }> {
  const child = spawn('git', ['daemon', '--reuseaddr', '--export-all', '--verbose', `--base-path=${base}`, `--listen=${host}`, `--port=${port}`, base], { stdio: ['ignore', 'ignore', 'pipe'], env: gitEnv });
  children.push(child);
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (d) => { log += d; if (log.includes('Ready to rumble')) resolve({ log: () => log }); });
    child.once('exit', (code) => reject(new Error(`git daemon on ${host}:${port} exited ${code}: ${log}`)));
  });
}

function record(name: string, req: IncomingMessage): void {
  seen[name]!.push({ host: req.headers.host ?? '', path: req.url ?? '', auth: req.headers.authorization ?? '' });
}

/** Dumb HTTP: the bare repository's files, as a static server would send them. */
function dumbGit(root: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url!, 'http://x').pathname)));
    try {
      if (!path.startsWith(root) || !statSync(path).isFile()) throw new Error('no');
      res.writeHead(200).end(readFileSync(path));
    } catch { res.writeHead(404).end(); }
  };
}

/** Smart HTTP: git http-backend as a CGI, so Host, Git-Protocol and the POST body are real. */
function smartGit(root: string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const u = new URL(req.url!, 'http://x');
    const cgi = spawn('git', ['http-backend'], {
      env: { PATH: process.env.PATH, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', REQUEST_METHOD: req.method, PATH_INFO: decodeURIComponent(u.pathname), QUERY_STRING: u.search.slice(1), CONTENT_TYPE: req.headers['content-type'] ?? '', HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '', GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''), REMOTE_ADDR: '127.0.0.1' },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let started = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (started) { res.write(chunk); return; }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const at = line.indexOf(':');
        const [key, value] = [line.slice(0, at).trim(), line.slice(at + 1).trim()];
        if (key.toLowerCase() === 'status') status = parseInt(value, 10);
        else headers[key] = value;
      }
      res.writeHead(status, headers);
      started = true;
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on('end', () => res.end());
  };
}

function listen(host: string, port: number, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const srv = createServer(handler);
  servers.push(srv);
  return new Promise((resolve, reject) => { srv.once('error', reject).listen(port, host, () => resolve((srv.address() as { port: number }).port)); });
}

/** Any process on the machine whose argv carries the token (as `ps` would show it). */
function scanArgv(): void {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (argv.includes(TOKEN) || argv.includes(BASIC.slice(6))) tokenInArgv.push(argv.replace(/\0/g, ' '));
    } catch { /* gone */ }
  }
}

// Origin A: /<case>/... answers 302 (the case names where to); /repo.git is a smart repository
// that demands the token; /alt.git is a dumb repository whose objects live at B (http-alternates).
const REDIRECTS: Record<string, (rest: string) => string> = {
  'to-other-host': (rest) => `http://127.0.0.3:${RB}/repo.git${rest}`,
  'to-other-port': (rest) => `http://127.0.0.1:${RB}/repo.git${rest}`,
  'to-same-origin': (rest) => `/repo.git${rest}`,
  'to-unspecified': (rest) => `http://0.0.0.0:${RB}/repo.git${rest}`,
  'to-file': () => 'file:///etc/passwd',
  'to-ssh': () => `ssh://127.0.0.3:${RB}/repo.git/info/refs?service=git-upload-pack`,
  'to-userinfo': (rest) => `http://x:y@127.0.0.3:${RB}/repo.git${rest}`,
  'drop-path': () => `http://127.0.0.3:${RB}/`,
  loop: (rest) => `/loop${rest}`,
};

function originA(goodRoot: string) {
  const smart = smartGit(goodRoot);
  const dumb = dumbGit(goodRoot);
  return (req: IncomingMessage, res: ServerResponse) => {
    record('a', req);
    if (req.headers.authorization) scanArgv();
    if (req.headers.authorization !== BASIC) { res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end(); return; }
    const m = /^\/([a-z-]+)(\/.*)$/.exec(req.url!);
    const redirect = m && REDIRECTS[m[1]!];
    if (redirect) { res.writeHead(302, { Location: redirect(m[2]!.replace(/^\/repo\.git/, '')) }).end(); return; }
    (req.url!.startsWith('/alt.git/') ? dumb : smart)(req, res);
  };
}

/** The preload that stands in for dns.lookup in the server process (test-only, never shipped). */
function dnsHook(): string {
  const file = join(dir, 'dns-hook.mjs');
  writeFileSync(file, `
import dns from 'node:dns';
import { appendFileSync } from 'node:fs';
const table = JSON.parse(process.env.VMHUB_TEST_DNS ?? '{}');
const only = process.env.VMHUB_TEST_DNS_ONLY === '1';
const calls = {};
const real = dns.promises.lookup.bind(dns.promises);
dns.promises.lookup = async (host, options = {}) => {
  const key = String(host).toLowerCase();
  appendFileSync(process.env.VMHUB_TEST_DNS_LOG, key + '\\n');
  const entry = table[key];
  if (entry === undefined) {
    if (only) throw Object.assign(new Error('getaddrinfo ENOTFOUND ' + host), { code: 'ENOTFOUND' });
    return real(host, options);
  }
  // An entry is a list of answers, one per call (the last repeats): rebinding in one line.
  const n = (calls[key] = (calls[key] ?? 0) + 1);
  const list = entry[Math.min(n, entry.length) - 1].map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  return options.all ? list : list[0];
};
`);
  return pathToFileURL(file).href;
}

function serverEnv(table: Record<string, string[][]>, only: boolean): Record<string, string> {
  return {
    PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
    NODE_OPTIONS: `--import=${dnsHook()}`,
    VMHUB_TEST_DNS: JSON.stringify(table),
    VMHUB_TEST_DNS_ONLY: only ? '1' : '0',
    VMHUB_TEST_DNS_LOG: dnsLog,
    VMHUB_TEST_GIT_TOKEN: TOKEN,
  };
}

const TEMPLATES = (extra: unknown[] = []) => [
  { id: 'plain', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g', provider_options: { ready_delay_ms: 20 } },
  ...extra,
];

async function lease(s: Session, template = 'plain'): Promise<string> {
  return (await waitReady(s, (await s.call('vm_lease_create', { template })).structuredContent.lease_id)).lease_id;
}

/** One attack: it must come back as a typed error with one of `codes`, and nothing may be cloned. */
async function attack(s: Session, args: Record<string, unknown>, codes: string[]): Promise<{ code?: string; message: string }> {
  tally.attempts++;
  let r;
  try { r = await s.call('vm_clone_repo', args); } catch (err) {
    tally.crashes++;
    throw new Error(`the server did not answer vm_clone_repo ${JSON.stringify(args)}: ${(err as Error).message}`);
  }
  if (!r.isError) { tally.executed++; assert.fail(`cloned although it must not: ${JSON.stringify(args)} → ${JSON.stringify(r.structuredContent)}`); }
  const code = errorCode(r);
  if (code) tally.typed++;
  if (code === 'POLICY_DENIED') tally.policyDenied++;
  assert.ok(code && codes.includes(code), `${args.url}: expected ${codes.join('/')}, got ${JSON.stringify(r.structuredContent ?? r.content)}`);
  assert.equal(typeof r.structuredContent.hint, 'string');
  assert.ok(!JSON.stringify(r).includes(TOKEN) && !JSON.stringify(r).includes(BASIC.slice(6)), 'no token in a refusal');
  return { code, message: r.structuredContent.message };
}

/** Every file under the fake guests' roots that holds `needle`. */
function guestFilesWith(box: Sandbox, needle: string): string[] {
  const found: string[] = [];
  if (!existsSync(box.fakeDir)) return found;
  for (const entry of readdirSync(box.fakeDir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

let secretDaemon: { log(): string };
let goodDaemon: { log(): string };
const connections = (d: { log(): string }) => (d.log().match(/Connection from/g) ?? []).length;

before(async () => {
  mkdirSync(join(dir, 'secret'));
  mkdirSync(join(dir, 'good'));
  await bareRepo(join(dir, 'secret', 'repo.git'), 'SECRET.txt', `${SECRET}\n`);
  await bareRepo(join(dir, 'good', 'repo.git'), 'GOOD.txt', GOOD);
  // alt.git: refs and HEAD, but every object left to an alternate at B.
  const alt = join(dir, 'good', 'alt.git');
  await run('git', ['init', '-q', '--bare', alt], { env: gitEnv });
  const refs = (await run('git', ['-C', join(dir, 'good', 'repo.git'), 'for-each-ref', '--format=%(objectname)%09%(refname)'], { env: gitEnv })).stdout;
  mkdirSync(join(alt, 'info'), { recursive: true });
  writeFileSync(join(alt, 'info', 'refs'), refs);
  writeFileSync(join(alt, 'HEAD'), 'ref: refs/heads/main\n');
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'ssh'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${sshLog}'\necho 'fake ssh: no connection' >&2\nexit 255\n`);
  chmodSync(join(dir, 'bin', 'ssh'), 0o755);
  writeFileSync(sshLog, '');
  writeFileSync(dnsLog, '');

  P = await sharedPort(['127.0.0.1', '127.0.0.2']);
  secretDaemon = await daemon(join(dir, 'secret'), '127.0.0.1', P);
  goodDaemon = await daemon(join(dir, 'good'), '127.0.0.2', P);
  H = await sharedPort(['127.0.0.1', '127.0.0.2']);
  await listen('127.0.0.1', H, (req, res) => { record('secretHttp', req); dumbGit(join(dir, 'secret'))(req, res); });
  await listen('127.0.0.2', H, (req, res) => { record('goodHttp', req); smartGit(join(dir, 'good'))(req, res); });
  RA = await listen('127.0.0.1', 0, originA(join(dir, 'good')));
  RB = await sharedPort(['127.0.0.1', '127.0.0.3']);
  await listen('127.0.0.1', RB, (req, res) => { record('b1', req); smartGit(join(dir, 'good'))(req, res); });
  await listen('127.0.0.3', RB, (req, res) => { record('b3', req); smartGit(join(dir, 'good'))(req, res); });
});

after(() => {
  for (const srv of servers) srv.close();
  for (const child of children) child.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('clone guard: loopback and private addresses in every spelling (allow_private_hosts false)', () => {
  let box: Sandbox;
  let s: Session;
  let id: string;
  // What the stand-in resolver answers; nothing else reaches real DNS in this box.
  const table: Record<string, string[][]> = {
    'loop.test': [['127.0.0.1']],
    'mixed.test': [['93.184.216.34', '127.0.0.1']],
    'mapped.test': [['::ffff:127.0.0.1']],
    'v6loop.test': [['::1']],
    'zero.test': [['0.0.0.0']],
    'meta.test': [['169.254.169.254']],
    'ula.test': [['fd00::2']],
    'private.test': [['93.184.216.34', '10.1.2.3']],
    'cgnat.test': [['100.64.0.1']],
    'nat64.test': [['64:ff9b::7f00:1']],
  };
  const hosts = [
    '127.1', '127.0.1', '0x7f.1', '0X7F.0.0.1', '0x7f000001', '2130706433', '017700000001', '0177.0.0.1', '0177.1', '127.000.000.001', '127.0.0.1', '127.0.0.1.', '127.255.255.254',
    '[::1]', '[0:0:0:0:0:0:0:1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::FFFF:127.0.0.1]', '[::127.0.0.1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]',
    '0.0.0.0', '0', '[::]', '169.254.169.254', '169.254.0.1', '[fe80::1]', '[fc00::1]', '[fd00::2]', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.1.1', '100.64.0.1', '224.0.0.1', '255.255.255.255',
    'localhost', 'localhost.', 'LocalHost', 'foo.localhost', 'foo.localhost.', 'a.b.localhost', 'printer.local',
    ...Object.keys(table), 'LOOP.TEST.',
  ];
  // Ports are known only once the peers listen, so the URLs are built inside the test.
  const urls = () => hosts.flatMap((h) => [`git://${h}:${P}/repo.git`, `git://${h}/repo.git`, `http://${h}:${H}/repo.git`, `https://${h}:${H}/repo.git`, `ssh://git@${h}:${P}/repo.git`, `git+ssh://${h}/repo.git`, `git@${h}:repo.git`, `${h}:repo.git`]);

  before(async () => {
    box = sandbox({ clone: { allowed_schemes: ['http', 'https', 'git', 'ssh', 'git+ssh'], allow_private_hosts: false, timeout_seconds: 20 } }, TEMPLATES());
    s = await connect(box, serverEnv(table, true));
    id = await lease(s);
  });
  after(async () => { await s.close(); box.cleanup(); });

  it('refuses each spelling on git://, http(s)://, ssh:// and scp forms with POLICY_DENIED, naming the address', async () => {
    for (const url of urls()) {
      const { message } = await attack(s, { lease_id: id, url, dest: 'loot' }, ['POLICY_DENIED']);
      assert.match(message, /loopback|private|unspecified|multicast|broadcast|link-local|unique local|shared|localhost/, url);
    }
  });

  it('refuses authorities git, curl and URL parsers read differently, as typed errors', async () => {
    const tricky = [
      `http://%31%32%37.0.0.1:${H}/repo.git`, `git://%31%32%37.0.0.1:${P}/repo.git`, `http://evil.example#@127.0.0.1:${H}/repo.git`,
      `http://evil.example\\@127.0.0.1:${H}/repo.git`, `http://evil.example%2f@127.0.0.1:${H}/repo.git`, `http://127.0.0.1:${H}@evil.example/repo.git`,
      `http://u:p@127.0.0.1:${H}/repo.git`, `git://x@127.0.0.1:${P}/repo.git`, `http://[::1%25lo]:${H}/repo.git`, `http://[::1:${H}/repo.git`,
      `git://a.0x7f:${P}/repo.git`, `http://127.0.0.1.5:${H}/repo.git`, `http://1.2.3.4.5/repo.git`, `http://0x/repo.git`, `http://08.1/repo.git`,
      `http://①②⑦.0.0.1:${H}/repo.git`, `http://127。0。0。1:${H}/repo.git`, `http://127.0.0.1:${H}:${H}/repo.git`, `http://127.0.0.1:0/repo.git`, `http://127.0.0.1:99999/repo.git`,
      `http://-127.0.0.1/repo.git`, `http://127.0.0.1`, `git://127.0.0.1:${P}`, `ext::git daemon`, 'ext::sh%20-c%20id', `fd::/repo.git`, `[127.0.0.1:${P}]:repo.git`,
      `git@[127.0.0.1]:repo.git`, `-oProxyCommand=id@h:repo.git`, `ssh://-oProxyCommand=id/repo.git`, `file:///etc`, '/etc', './repo', '~/repo', 'repo',
      `ftp://127.0.0.1/repo.git`, `gopher://127.0.0.1/repo.git`, `http://127.0.0.1:${H}/repo.git\n`, `http://127.0.0.1:${H}/repo.git\0`, '',
    ];
    for (const url of tricky) await attack(s, { lease_id: id, url, dest: 'loot' }, ['POLICY_DENIED', 'INVALID_REQUEST']);
  });

  it('no peer saw a connection, nothing arrived in the guest, ssh never ran, and the server keeps serving', async () => {
    assert.equal(connections(secretDaemon), 0, secretDaemon.log());
    assert.equal(connections(goodDaemon), 0);
    assert.deepEqual([seen.secretHttp.length, seen.goodHttp.length], [0, 0]);
    assert.equal(readFileSync(sshLog, 'utf8'), '', 'ssh was never started');
    assert.equal(errorCode(await s.call('vm_get_file', { lease_id: id, path: 'loot/SECRET.txt' })), 'NOT_FOUND');
    assert.deepEqual(guestFilesWith(box, SECRET), []);
    assert.equal((await s.call('vm_health')).isError, undefined);
    assert.doesNotMatch(s.stderr(), /at .*\(.*:\d+:\d+\)/, 'no stack trace on stderr');
  });
});

describe('clone guard: git connects only to the checked address (DNS rebinding, allow_private_hosts true)', () => {
  let box: Sandbox;
  let s: Session;
  let id: string;
  // First answer 127.0.0.2 (serves the good repository), every later one 127.0.0.1 (the secret);
  // one name per case, as the answers are counted per name. git cannot resolve rebindN.test at
  // all, and resolves localhost to 127.0.0.1 itself.
  const rebind = [['127.0.0.2'], ['127.0.0.1']];
  const table = { 'rebind1.test': rebind, 'rebind2.test': rebind, 'rebind3.test': rebind, localhost: [['127.0.0.2']] };
  before(async () => {
    box = sandbox({ clone: { allowed_schemes: ['http', 'git', 'ssh'], allow_private_hosts: true, timeout_seconds: 20 } }, TEMPLATES());
    s = await connect(box, serverEnv(table, true));
    id = await lease(s);
  });
  after(async () => { await s.close(); box.cleanup(); });

  for (const url of [() => `git://rebind1.test:${P}/repo.git`, () => `git://localhost:${P}/repo.git`, () => `http://rebind2.test:${H}/repo.git`, () => `http://LOCALHOST.:${H}/repo.git`]) {
    it(`${url().replace(/:\d+/, ':PORT')} clones from the checked address, and the guest keeps the URL asked for`, async () => {
      const before = { secret: connections(secretDaemon), http: seen.secretHttp.length, good: seen.goodHttp.length };
      writeFileSync(dnsLog, '');
      const dest = `pinned-${tally.attempts++}`;
      const r = await s.call('vm_clone_repo', { lease_id: id, url: url(), dest });
      assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
      tally.pinned++;
      assert.equal((await s.call('vm_get_file', { lease_id: id, path: `${dest}/GOOD.txt` })).structuredContent.content, GOOD);
      assert.equal(errorCode(await s.call('vm_get_file', { lease_id: id, path: `${dest}/SECRET.txt` })), 'NOT_FOUND');
      const config = (await s.call('vm_get_file', { lease_id: id, path: `${dest}/.git/config` })).structuredContent.content;
      assert.ok(config.includes(`url = ${url()}`), config);
      assert.equal(connections(secretDaemon), before.secret, 'the secret daemon saw no connection');
      assert.equal(seen.secretHttp.length, before.http, 'the secret HTTP server saw no request');
      if (url().startsWith('http')) {
        assert.ok(seen.goodHttp.length > before.good);
        assert.ok(seen.goodHttp.slice(before.good).every((q) => q.host.toLowerCase() === new URL(url()).host.toLowerCase().replace(/\.(?=:)/, '')), 'Host header kept the name');
      }
      assert.equal(readFileSync(dnsLog, 'utf8').trim().split('\n').length, 1, 'the server resolved the name once');
      assert.equal(connections(secretDaemon), before.secret, 'nothing reached the secret daemon afterwards either');
    });
  }

  it('ssh is pointed at the checked address, with known_hosts still checked for the name', async () => {
    writeFileSync(sshLog, '');
    tally.attempts++;
    const r = await s.call('vm_clone_repo', { lease_id: id, url: 'ssh://git@rebind3.test/repo.git' });
    assert.ok(errorCode(r), 'the fake ssh fails, as a typed error');
    const argv = readFileSync(sshLog, 'utf8');
    assert.match(argv, /-o HostName=127\.0\.0\.2 -o HostKeyAlias=rebind3\.test/);
    tally.pinned++;
    assert.doesNotMatch(argv, /127\.0\.0\.1/);
  });
});

describe('clone redirects and credentials (allow_private_hosts true, http allowed)', () => {
  let box: Sandbox;
  let s: Session;
  const leases: Record<string, string> = {};
  const newAt = (name: string) => seen[name]!.length;
  before(async () => {
    box = sandbox({ clone: { allowed_schemes: ['http'], allow_private_hosts: true, timeout_seconds: 20 } }, TEMPLATES([
      { id: 'host-cred', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g', provider_options: { ready_delay_ms: 20 }, clone_credentials: { '127.0.0.1': { token_env: 'VMHUB_TEST_GIT_TOKEN' } } },
      { id: 'origin-cred', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g', provider_options: { ready_delay_ms: 20 }, clone_credentials: { [`http://127.0.0.1:${RA}`]: { token_env: 'VMHUB_TEST_GIT_TOKEN' } } },
    ]));
    s = await connect(box, serverEnv({}, false));
    for (const t of ['plain', 'host-cred', 'origin-cred']) leases[t] = await lease(s, t);
  });
  after(async () => { await s.close(); box.cleanup(); });

  for (const [template, kase, target] of [['host-cred', 'to-other-host', 'b3'], ['host-cred', 'to-other-port', 'b1'], ['origin-cred', 'to-other-port', 'b1']] as const) {
    it(`${template}: a 302 from A to ${kase.slice(3)} is followed through the policy, and the target gets no Authorization`, async () => {
      const [a0, b0] = [newAt('a'), newAt(target)];
      tally.attempts++;
      const r = await s.call('vm_clone_repo', { lease_id: leases[template], url: `http://127.0.0.1:${RA}/${kase}/repo.git`, dest: `${kase}-${template}` });
      assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
      assert.equal((await s.call('vm_get_file', { lease_id: leases[template], path: `${kase}-${template}/GOOD.txt` })).structuredContent.content, GOOD);
      assert.ok(seen.a.slice(a0).some((q) => q.auth === BASIC), 'A, the origin the token is for, got it');
      const atB = seen[target]!.slice(b0);
      assert.ok(atB.length > 0, 'the clone came from B');
      const leaked = atB.filter((q) => q.auth !== '');
      tally.leaks += leaked.length;
      assert.deepEqual(leaked, [], 'B received no Authorization');
      tally.followed++;
    });
  }

  it('a redirect within the origin keeps the credential (a renamed repository)', async () => {
    tally.attempts++;
    const r = await s.call('vm_clone_repo', { lease_id: leases['host-cred'], url: `http://127.0.0.1:${RA}/to-same-origin/repo.git`, dest: 'same-origin' });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    assert.equal((await s.call('vm_get_file', { lease_id: leases['host-cred'], path: 'same-origin/GOOD.txt' })).structuredContent.content, GOOD);
    tally.followed++;
  });

  it('redirects the policy refuses are POLICY_DENIED naming the target; loops stop; B sees nothing', async () => {
    const b0 = [newAt('b1'), newAt('b3')];
    for (const kase of ['to-unspecified', 'to-file', 'to-ssh', 'to-userinfo', 'drop-path', 'loop']) {
      const { message } = await attack(s, { lease_id: leases['host-cred'], url: `http://127.0.0.1:${RA}/${kase}/repo.git` }, ['POLICY_DENIED']);
      assert.match(message, /redirect/, message);
    }
    assert.deepEqual([newAt('b1'), newAt('b3')], b0);
  });

  it('objects offered by another host (http-alternates) are not fetched from it', async () => {
    const b0 = newAt('b3');
    writeFileSync(join(dir, 'good', 'alt.git', 'objects', 'info', 'http-alternates'), `http://127.0.0.3:${RB}/repo.git/objects\n`);
    await attack(s, { lease_id: leases['host-cred'], url: `http://127.0.0.1:${RA}/alt.git` }, ['INVALID_REQUEST', 'NOT_FOUND']);
    assert.equal(newAt('b3'), b0);
  });

  it('the token never showed in any process\'s argv, a result, or the guest', () => {
    tally.leaks += tokenInArgv.length;
    assert.deepEqual(tokenInArgv, []);
    assert.ok(seen.a.some((q) => q.auth === BASIC), 'the argv scan ran while git held the token');
    assert.deepEqual(guestFilesWith(box, TOKEN), []);
    assert.deepEqual(guestFilesWith(box, BASIC.slice(6)), []);
  });
});

describe('clone redirects under a host list', () => {
  let box: Sandbox;
  let s: Session;
  let id: string;
  before(async () => {
    box = sandbox({ clone: { allowed_schemes: ['http'], allowed_hosts: ['127.0.0.1'], allow_private_hosts: true, timeout_seconds: 20 } }, TEMPLATES([
      { id: 'host-cred', provider: 'fake', adapter: 'fake', os: 'linux', golden: 'g', provider_options: { ready_delay_ms: 20 }, clone_credentials: { '127.0.0.1': { token_env: 'VMHUB_TEST_GIT_TOKEN' } } },
    ]));
    s = await connect(box, serverEnv({}, false));
    id = await lease(s, 'host-cred');
  });
  after(async () => { await s.close(); box.cleanup(); });

  it('a 302 to a host off clone.allowed_hosts is refused as if asked directly, and that host sees nothing', async () => {
    const b0 = newLen();
    await attack(s, { lease_id: id, url: `http://127.0.0.3:${RB}/repo.git` }, ['POLICY_DENIED']);
    const { message } = await attack(s, { lease_id: id, url: `http://127.0.0.1:${RA}/to-other-host/repo.git` }, ['POLICY_DENIED']);
    assert.match(message, new RegExp(`redirects to http://127\\.0\\.0\\.3:${RB}/repo\\.git.*not allowed`));
    assert.equal(newLen(), b0);
  });
  const newLen = () => seen.b3.length;
});

describe('clone plan: the policy resolves once and git is given only the checked address', () => {
  const policy = { allowed_schemes: ['https', 'http', 'git', 'ssh'], allowed_hosts: [], allow_file: false, allow_private_hosts: false, credentials: {}, timeout_seconds: 5, max_bytes: 1 };
  it('a name that answers a public address first and loopback afterwards', async () => {
    let calls = 0;
    const lookup = async () => (calls++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']);
    const plans: GitPlan[] = [];
    for (const url of ['git://rebind.test/r.git', 'https://rebind.test/r.git', 'ssh://git@rebind.test/r.git']) {
      calls = 0;
      plans.push(gitPlan(await resolveCloneTarget(url, policy, lookup, 1000)));
      assert.equal(calls, 1, 'resolved once');
    }
    assert.equal(plans[0]!.url, 'git://93.184.216.34/r.git');
    assert.equal(plans[1]!.url, 'https://rebind.test/r.git');
    assert.ok(Object.entries(plans[1]!.env).some(([k, v]) => v === 'http.curloptResolve' && plans[1]!.env[k.replace('KEY', 'VALUE')] === 'rebind.test:443:93.184.216.34'));
    assert.equal(plans[2]!.env.GIT_SSH_COMMAND, 'ssh -o HostName=93.184.216.34 -o HostKeyAlias=rebind.test');
    for (const plan of plans) assert.ok(Object.values(plan.env).includes('http.followRedirects'));
    tally.attempts++;
    await assert.rejects(resolveCloneTarget('https://rebind.test/r.git', policy, async () => ['93.184.216.34', '::1'], 1000), /resolves to ::1 \(loopback\)/);
    tally.typed++; tally.policyDenied++;
  });
});

describe('clone security figures', () => {
  it('prints them for docs/security.md', (t) => {
    t.diagnostic(`clone security: attempts=${tally.attempts} typed_errors=${tally.typed} policy_denied=${tally.policyDenied} pinned_to_checked_address=${tally.pinned} redirects_followed_through_policy=${tally.followed} crashes=${tally.crashes} executed=${tally.executed} leaks=${tally.leaks}`);
    assert.equal(tally.crashes + tally.executed + tally.leaks, 0);
    assert.equal(tally.typed + tally.pinned + tally.followed, tally.attempts, 'every attempt has one outcome');
  });
});
