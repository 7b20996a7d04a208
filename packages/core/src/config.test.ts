import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from './config.ts';
import { resolveGuestPath } from './paths.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('core: configuration', () => {
  it('fills defaults with no file', () => {
    const c = loadConfig({ env: { XDG_CONFIG_HOME: dir } });
    assert.equal(c.instance, 'local');
    assert.equal(c.leases.max_lifetime_seconds, 86400);
    assert.equal(c.source, null);
  });
  it('reads the file and lets env override', () => {
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ instance: 'lab', leases: { default_ttl_seconds: 120 }, policy: { deny_tools: ['vm_exec'] } }));
    const c = loadConfig({ env: { VMHUB_CONFIG: file, VMHUB_INSTANCE: 'ci', VMHUB_DB: '/tmp/x.db' } });
    assert.equal(c.instance, 'ci');
    assert.equal(c.db, '/tmp/x.db');
    assert.equal(c.leases.default_ttl_seconds, 120);
    assert.deepEqual(c.policy.deny_tools, ['vm_exec']);
  });
  it('relative plugin paths in the file are from its folder; VMHUB_PLUGINS ones stay as given', () => {
    const file = join(dir, 'plugins.json');
    writeFileSync(file, JSON.stringify({ plugins: ['./my-adapter', '../shared/p.mjs', 'vmhub-adapter-x', '/abs/dir'] }));
    const c = loadConfig({ env: { VMHUB_CONFIG: file, VMHUB_PLUGINS: './from-env,pkg' } });
    assert.deepEqual(c.plugins, [join(dir, 'my-adapter'), join(dir, '..', 'shared', 'p.mjs'), 'vmhub-adapter-x', '/abs/dir', './from-env', 'pkg']);
  });
  it('names the bad key and the file', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ leases: { default_ttl_seconds: 'soon' } }));
    assert.throws(() => loadConfig({ env: { VMHUB_CONFIG: file } }), /bad\.json.*leases\.default_ttl_seconds/);
    assert.throws(() => loadConfig({ env: { VMHUB_CONFIG: join(dir, 'missing.json') } }), /does not exist/);
    assert.throws(() => loadConfig({ env: { VMHUB_CONFIG: file, VMHUB_DEFAULT_TTL_SECONDS: 'x' } }), /must be an integer/);
  });
  it('pools: defaults filled; min_ready above max, a hold under 5 s and an unknown key are refused by name', () => {
    const file = join(dir, 'pools.json');
    writeFileSync(file, JSON.stringify({ pools: { 'debian-x11': {} } }));
    assert.deepEqual(loadConfig({ env: { VMHUB_CONFIG: file } }).pools, { 'debian-x11': { min_ready: 1, max: 2, hold_seconds: 60 } });
    writeFileSync(file, JSON.stringify({ pools: { 'debian-x11': { min_ready: 3, max: 2 } } }));
    assert.throws(() => loadConfig({ env: { VMHUB_CONFIG: file } }), (err: Error & { code?: string }) => err.code === 'INVALID_REQUEST' && /pools\.debian-x11\.min_ready \(3\) is more than pools\.debian-x11\.max \(2\)/.test(err.message));
    writeFileSync(file, JSON.stringify({ pools: { 'debian-x11': { hold_seconds: 1 } } }));
    assert.throws(() => loadConfig({ env: { VMHUB_CONFIG: file } }), /pools\/debian-x11\/hold_seconds|pools\.debian-x11\.hold_seconds/);
    writeFileSync(file, JSON.stringify({ pools: { 'debian-x11': { min: 1 } } }));
    assert.throws(() => loadConfig({ env: { VMHUB_CONFIG: file } }), /pools\.debian-x11\.min/);
  });
});

describe('core: configuration refuses unknown keys', () => {
  const load = (value: unknown) => {
    const file = join(dir, 'unknown.json');
    writeFileSync(file, JSON.stringify(value));
    return () => loadConfig({ file, env: {} });
  };
  const template = { id: 't', provider: 'fake', adapter: 'fake', golden: 'g' };
  const cases: Array<[unknown, RegExp]> = [
    [{ templats: [] }, /unknown key "templats": did you mean "templates"\?/],
    [{ leases: { default_ttl: 60 } }, /unknown key "leases\.default_ttl": did you mean "leases\.default_ttl_seconds"\?/],
    [{ Instance: 'x' }, /unknown key "Instance": did you mean "instance"\?/],
    [{ http: { max_session: 3 } }, /"http\.max_session": did you mean "http\.max_sessions"/],
    [{ http: { tokens: [{ principal: 'ci', token_env: 'T', token: 'secret' }] } }, /unknown key "http\.tokens\[0\]\.token"/],
    [{ templates: [template, { ...template, id: 'u', golen: 'x' }] }, /"templates\[1\]\.golen": did you mean "templates\[1\]\.golden"/],
    [{ templates: [{ ...template, resources: { memory: 512 } }] }, /"templates\[0\]\.resources\.memory": did you mean "templates\[0\]\.resources\.memory_mb"/],
    [{ clone: { credentials: { 'github.com': { token_env: 'X', tokenenv: 'Y' } } } }, /"clone\.credentials\.github\.com\.tokenenv": did you mean .*token_env/],
    [{ screenshots: { zzz: 1 } }, /unknown key "screenshots\.zzz" \(valid here: dir, format/],
  ];
  for (const [value, expected] of cases) {
    it(`refuses ${JSON.stringify(value).slice(0, 70)}`, () => {
      assert.throws(load(value), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'INVALID_REQUEST');
        assert.match(err.message, /unknown\.json/);
        assert.match(err.message, expected);
        return true;
      });
    });
  }
  it('leaves plugin-owned maps and $schema alone', () => {
    const c = load({ $schema: './vmhub.schema.json', providers: { docker: { anything: 1 } }, adapters: { x11: { display: ':0' } }, templates: [{ ...template, provider_options: { whatever: true }, adapter_options: { also: 1 } }] })();
    assert.deepEqual(c.providers.docker, { anything: 1 });
  });
  it('names several unknown keys at once', () => {
    assert.throws(load({ templats: [], polcy: {} }), /templats.*polcy/);
  });
  it('reads http tokens, idle timeout and session cap (file and env)', () => {
    const file = join(dir, 'http.json');
    writeFileSync(file, JSON.stringify({ http: { tokens: [{ principal: 'ci-agent', token_env: 'VMHUB_TOKEN_CI' }], max_sessions: 7 } }));
    const c = loadConfig({ file, env: { VMHUB_HTTP_SESSION_IDLE_SECONDS: '5' } });
    assert.deepEqual(c.http.tokens, [{ principal: 'ci-agent', token_env: 'VMHUB_TOKEN_CI' }]);
    assert.equal(c.http.max_sessions, 7);
    assert.equal(c.http.session_idle_seconds, 5);
    const d = loadConfig({ env: { XDG_CONFIG_HOME: dir } });
    assert.equal(d.http.session_idle_seconds, 1800);
    assert.equal(d.http.max_sessions, 100);
    assert.equal(d.http.max_sessions_per_principal, undefined, 'unset: the server takes a quarter of max_sessions');
    assert.equal(d.http.ui_session_idle_seconds, 7200);
    assert.equal(d.http.ui_session_max_seconds, 43200);
    const e = loadConfig({ file, env: { VMHUB_HTTP_MAX_SESSIONS_PER_PRINCIPAL: '3' } });
    assert.equal(e.http.max_sessions_per_principal, 3);
    assert.throws(() => load({ http: { max_sessions_per_principal: 0 } })(), /max_sessions_per_principal/);
    assert.throws(() => load({ http: { tokens: [{ principal: 'bad name', token_env: 'X' }] } })(), /http\.tokens\.0\.principal/);
  });
});

describe('core: guest paths', () => {
  it('resolves relative paths against home and refuses traversal', () => {
    assert.equal(resolveGuestPath('a/b.txt', '/home/user'), '/home/user/a/b.txt');
    assert.equal(resolveGuestPath('~/b.txt', '/home/user'), '/home/user/b.txt');
    assert.equal(resolveGuestPath('/etc/hosts', '/home/user'), '/etc/hosts');
    assert.throws(() => resolveGuestPath('../x', '/home/user'), /"\.\." segment/);
    assert.throws(() => resolveGuestPath('/a/../../etc', '/home/user'), /"\.\." segment/);
    assert.throws(() => resolveGuestPath('/a\0b', '/home/user'), /NUL/);
    assert.throws(() => resolveGuestPath('/', '/home/user'), /must name a file/);
  });
});
