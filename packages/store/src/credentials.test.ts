// Lease credentials on both dialects: sealed at rest (the database alone reveals nothing), open
// until revoked, retried revocations counted, and the sweep's view of leases that are over.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { forDialects } from '../test/dialects.ts';
import { Sealer } from './sealed.ts';
import type { LeaseStatus } from './lifecycle.ts';
import { Store } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'vmhub-cred-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const LIVE: LeaseStatus[] = ['provisioning', 'starting', 'ready', 'releasing'];
const TOKEN = 'ghs_' + 'A1b2'.repeat(9);
let n = 0;

async function lease(store: Store, status: LeaseStatus): Promise<string> {
  const id = `c${++n}`;
  const now = Date.now();
  await store.createLease({ id, principal: 'p', request_id: `r-${id}`, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status, identity: `vmhub-test-${id}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null });
  return id;
}

forDialects('store: lease credentials', (d) => {
  let store: Store;
  let keyFile: string;
  let db: string;
  before(async () => {
    keyFile = join(dir, `${d.kind}.key`);
    db = await d.fresh('credentials');
    store = d.connect(db, { secretsKeyFile: keyFile });
  });

  it('a credential is sealed in the database, opens through the store, and stays open until revoked', async () => {
    const id = await lease(store, 'ready');
    const { id: cid } = await store.addLeaseCredential(id, { kind: 'github_app_token', scope: 'github.com/o/r', secret: { token: TOKEN, revoke_url: 'https://api.github.com/installation/token' }, details: { installation_id: 7 }, expires_at: Date.now() + 3_600_000 });
    assert.equal(statSync(keyFile).mode & 0o777, 0o600, 'the key file is 0600');
    const [c] = await store.leaseCredentials(id);
    assert.equal(c!.id, cid);
    assert.equal(c!.secret.token, TOKEN);
    assert.deepEqual(c!.details, { installation_id: 7 });
    // Nowhere in the database in plain text (SQLite: the file's bytes; both: a copy opened with another key fails).
    if (d.kind === 'sqlite') {
      await store.schemaInfo();
      const bytes = readFileSync(store.path).toString('latin1') + (() => { try { return readFileSync(`${store.path}-wal`).toString('latin1'); } catch { return ''; } })();
      assert.ok(!bytes.includes(TOKEN) && !bytes.includes('A1b2A1b2'), 'no token bytes in the SQLite file or its WAL');
      assert.ok(bytes.includes('github.com/o/r'), 'the plain scope is there (the check reads the right file)');
    }
    // The same database opened with another key file: the row is there, its secret does not open.
    writeFileSync(join(dir, `${d.kind}-other.key`), Buffer.alloc(32, 1), { mode: 0o600 });
    const other = d.connect(db, { secretsKeyFile: join(dir, `${d.kind}-other.key`) });
    await assert.rejects(other.leaseCredentials(id), /does not open/);
    await store.credentialRevokeFailed(cid, 'HTTP 500 from GitHub');
    await store.credentialRevokeFailed(cid, 'HTTP 502 from GitHub');
    const [failed] = await store.leaseCredentials(id);
    assert.equal(failed!.attempts, 2);
    assert.equal(failed!.last_error, 'HTTP 502 from GitHub');
    await store.credentialRevoked(cid, 'revoked');
    assert.deepEqual(await store.leaseCredentials(id), []);
    const [closed] = await store.leaseCredentials(id, { all: true });
    assert.equal(closed!.outcome, 'revoked');
    assert.ok(closed!.revoked_at! > 0);
  });

  it('the sweep sees open credentials of leases that are over, not of live ones', async () => {
    const live = await lease(store, 'ready');
    const over = await lease(store, 'released');
    await store.addLeaseCredential(live, { kind: 'k', scope: 's-live', secret: { token: 'a' }, expires_at: Date.now() + 1000 });
    const { id: pendingId } = await store.addLeaseCredential(over, { kind: 'k', scope: 's-over', secret: { token: 'b' }, expires_at: Date.now() + 1000 });
    const pending = await store.pendingRevocations(LIVE);
    assert.ok(pending.some((c) => c.id === pendingId && c.secret.token === 'b'));
    assert.ok(!pending.some((c) => c.scope === 's-live'));
  });
});

describe('store: sealing', () => {
  it('the key is made once, 0600, and a sealed value is bound to its record id', () => {
    const file = join(dir, 'sub', 'secrets.key');
    const a = new Sealer(file);
    const sealed = a.seal('secret', 'id-1');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(new Sealer(file).open(sealed, 'id-1'), 'secret', 'another process with the key file opens it');
    assert.throws(() => new Sealer(file).open(sealed, 'id-2'), /does not open/, 'moved to another row: refused');
    assert.throws(() => new Sealer(join(dir, 'absent.key')).open(sealed, 'id-1'), /is missing/);
  });
});
