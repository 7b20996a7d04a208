// What VMHUB_DB may hold, without any database: SQLite paths, postgres:// and postgresql:// URLs
// with vmhub's own settings (stripped before pg sees them), refusal of every other scheme (named
// in the error), and passwords masked everywhere they could show (store.path, error messages).
// A refused value creates no file anywhere (checked in a child whose cwd and TMPDIR are empty).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { StoreConfigError } from '../src/errors.ts';
import { Store } from '../src/store.ts';
import { parseStoreTarget, redact } from '../src/target.ts';

const run = promisify(execFile);
const isConfigError = (needle: RegExp, secret?: string) => (err: unknown) =>
  err instanceof StoreConfigError && err.code === 'STORE_CONFIG' && needle.test(err.message) && (secret === undefined || !err.message.includes(secret));

describe('store: VMHUB_DB targets', () => {
  it('a path or :memory: is SQLite, as given', () => {
    assert.deepEqual(parseStoreTarget('/var/lib/vmhub/vmhub.db'), { kind: 'sqlite', path: '/var/lib/vmhub/vmhub.db' });
    assert.deepEqual(parseStoreTarget('state/vmhub.db'), { kind: 'sqlite', path: 'state/vmhub.db' });
    assert.deepEqual(parseStoreTarget(':memory:'), { kind: 'sqlite', path: ':memory:' });
    assert.deepEqual(parseStoreTarget('C:relative.db'), { kind: 'sqlite', path: 'C:relative.db' }, 'no "://": not a scheme');
    assert.throws(() => parseStoreTarget('  '), isConfigError(/VMHUB_DB is empty/));
  });

  it('postgres:// and postgresql:// are PostgreSQL, with the password masked', () => {
    for (const scheme of ['postgres', 'postgresql', 'POSTGRES']) {
      const t = parseStoreTarget(`${scheme}://vmhub:s3cret@db.example:5432/vmhub`);
      assert.equal(t.kind, 'postgres');
      if (t.kind !== 'postgres') continue;
      assert.equal(t.url, `${scheme.toLowerCase()}://vmhub:s3cret@db.example:5432/vmhub`);
      assert.equal(t.redacted, `${scheme.toLowerCase()}://vmhub:***@db.example:5432/vmhub`);
      assert.deepEqual(t.settings, {});
    }
  });

  it('vmhub\'s settings come out of the URL; pg\'s own parameters stay', () => {
    const t = parseStoreTarget('postgres://u:pw@h/db?pool_max=3&statement_timeout_ms=300&connect_timeout_ms=1000&retry_ms=500&sslmode=disable');
    assert.equal(t.kind, 'postgres');
    if (t.kind !== 'postgres') return;
    assert.deepEqual(t.settings, { poolMax: 3, statementTimeoutMs: 300, connectTimeoutMs: 1000, retryForMs: 500 });
    assert.equal(t.url, 'postgres://u:pw@h/db?sslmode=disable');
    assert.equal(t.redacted, 'postgres://u:***@h/db?sslmode=disable');
  });

  it('a bad setting is refused, naming it', () => {
    for (const bad of ['pool_max=0', 'pool_max=-1', 'retry_ms=abc', 'statement_timeout_ms=1.5', 'connect_timeout_ms=', 'pool_max=1e400']) {
      const [param] = bad.split('=');
      assert.throws(() => parseStoreTarget(`postgres://u:hunter2@h/db?${bad}`), isConfigError(new RegExp(`parameter ${param}=.* must be a positive integer`), 'hunter2'), bad);
    }
  });

  it('any other scheme is refused, naming it', () => {
    for (const scheme of ['mysql', 'sqlite', 'file', 'http', 'https', 'redis']) {
      assert.throws(() => parseStoreTarget(`${scheme}://root:hunter2@db.example/vmhub`), isConfigError(new RegExp(`"${scheme}://", which this store does not support`), 'hunter2'), scheme);
    }
  });

  it('URLs without a host or that do not parse are refused without showing the password', () => {
    assert.throws(() => parseStoreTarget('postgres://u:hunter2@/db'), isConfigError(/names no host|not a valid URL/, 'hunter2'));
    assert.throws(() => parseStoreTarget('postgres://u:hunter2@h:notaport/db'), isConfigError(/not a valid URL \(postgres:\/\/u:\*\*\*@h:notaport\/db\)/, 'hunter2'));
    // Generated passwords often hold '/', '?' or '#' unencoded: the URL does not parse, and the message must still mask them.
    for (const pw of ['ab/cd', 'ab?cd', 'ab#cd']) {
      assert.throws(() => parseStoreTarget(`postgres://u:${pw}@h/db`), isConfigError(/VMHUB_DB/, pw), pw);
    }
  });

  it('redact masks only the password', () => {
    assert.equal(redact('postgres://u:pw@h:1/db?x=1'), 'postgres://u:***@h:1/db?x=1');
    assert.equal(redact('postgres://u@h/db'), 'postgres://u@h/db');
    assert.equal(redact('postgres://h/db'), 'postgres://h/db');
    assert.equal(redact('/var/lib/vmhub.db'), '/var/lib/vmhub.db');
  });

  it('a Store on a postgres:// URL says its kind and shows only the masked URL, without connecting', async () => {
    const store = new Store({ path: 'postgres://vmhub:hunter2@127.0.0.1:1/vmhub?retry_ms=100' });
    assert.equal(store.kind, 'postgres');
    assert.equal(store.path, 'postgres://vmhub:***@127.0.0.1:1/vmhub');
    await store.close();
  });
});

describe('store: a refused VMHUB_DB creates nothing', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'vmhub-store-cwd-'));
  const tmp = mkdtempSync(join(tmpdir(), 'vmhub-store-tmp-'));
  after(() => { rmSync(cwd, { recursive: true, force: true }); rmSync(tmp, { recursive: true, force: true }); });
  const storeTs = fileURLToPath(new URL('../src/store.ts', import.meta.url));

  it('new Store({ path: "mysql://x" }) throws StoreConfigError and leaves the cwd and the temp dir empty', async () => {
    const child = `
      const { Store } = await import(process.argv[1]);
      const out = [];
      for (const path of ['mysql://x', 'mysql://root:pw@db/vmhub', 'sqlite://vmhub.db', 'file:///tmp/x.db', 'http://x/']) {
        try { new Store({ path }); out.push({ path, created: true }); }
        catch (err) { out.push({ path, name: err.name, code: err.code, message: err.message }); }
      }
      console.log(JSON.stringify(out));
    `;
    const r = await run(process.execPath, ['--input-type=module', '-e', child, storeTs], { cwd, env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp }, timeout: 60_000 });
    const results = JSON.parse(r.stdout) as { path: string; created?: boolean; name?: string; code?: string; message?: string }[];
    assert.equal(results.length, 5);
    for (const res of results) {
      assert.equal(res.created, undefined, `${res.path} opened a store`);
      assert.equal(res.name, 'StoreConfigError', res.path);
      assert.equal(res.code, 'STORE_CONFIG', res.path);
      assert.ok(res.message?.includes(`"${res.path.split('://')[0]}://"`), `${res.path}: ${res.message}`);
    }
    assert.deepEqual(readdirSync(cwd), [], 'nothing in the working directory');
    assert.deepEqual(readdirSync(tmp), [], 'nothing in the temp dir');
  });

  it('in this process too: no file named after the URL appears in the cwd', () => {
    const before = new Set(readdirSync(process.cwd()));
    assert.throws(() => new Store({ path: 'mysql://x' }), isConfigError(/"mysql:\/\/"/));
    assert.deepEqual(readdirSync(process.cwd()).filter((f) => !before.has(f)), []);
  });
});
