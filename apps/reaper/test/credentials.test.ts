// Revoking lease credentials (src/credentials.ts) against a local HTTP peer that answers as
// GitHub's DELETE /installation/token can: 204 revoked, 401 already invalid, 5xx retried then
// left open (counted, logged without the token) for the next pass, and a token past its expiry
// closed without a request.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Store } from '@vmhub/store';
import { revokeCredential, revokeLeaseCredentials, revokePending } from '../src/credentials.ts';

const TOKEN = `ghs_${'Rk7'.repeat(12)}`;
let server: Server;
let base = '';
/** Statuses the peer answers next (then 204); every request's method and Authorization seen. */
const script: number[] = [];
const seen: Array<{ method: string; auth: string | undefined }> = [];
const store = new Store({ path: ':memory:' });
let n = 0;

async function leaseWith(status: 'ready' | 'released', expiresIn = 3_600_000): Promise<{ lease: string; id: string }> {
  const lease = `l${++n}`;
  const now = Date.now();
  await store.createLease({ id: lease, principal: 'p', request_id: `r${n}`, template: 't', provider: 'fake', adapter: 'fake', owner: 'o', status, identity: `vmhub-t-${lease}`, created_at: now, expires_at: now + 60_000, max_expires_at: now + 86_400_000, deadline_at: null });
  const { id } = await store.addLeaseCredential(lease, { kind: 'github_app_token', scope: 'github.com/o/r', secret: { token: TOKEN, revoke_url: `${base}/api/v3/installation/token` }, expires_at: now + expiresIn });
  return { lease, id };
}

before(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method!, auth: req.headers.authorization });
    res.writeHead(script.shift() ?? 204).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(async () => { server.close(); await store.close(); });

describe('reaper: revoking lease credentials', () => {
  it('204 revokes with the token as Bearer; 401 is already invalid; an expired token needs no request', async () => {
    const a = await leaseWith('released');
    assert.deepEqual(await revokeLeaseCredentials(store, a.lease), ['revoked']);
    assert.deepEqual(seen.at(-1), { method: 'DELETE', auth: `Bearer ${TOKEN}` });
    assert.deepEqual(await store.leaseCredentials(a.lease), []);
    const b = await leaseWith('released');
    script.push(401);
    assert.deepEqual(await revokeLeaseCredentials(store, b.lease), ['already_invalid']);
    const before = seen.length;
    const c = await leaseWith('released', -1000);
    assert.deepEqual(await revokeLeaseCredentials(store, c.lease), ['expired']);
    assert.equal(seen.length, before, 'no request for a lapsed token');
    assert.equal((await store.leaseCredentials(c.lease, { all: true }))[0]!.outcome, 'expired');
  });

  it('5xx is retried; still failing, it stays open, counted and logged without the token, and the next pass revokes it', async () => {
    const d = await leaseWith('released');
    script.push(500, 502);
    const [c] = await store.leaseCredentials(d.lease);
    assert.equal(await revokeCredential(store, c!, { attempts: 3 }), 'revoked', 'the third attempt gets through');
    const e = await leaseWith('released');
    script.push(500, 500, 503);
    const lines: string[] = [];
    const log = (level: string, msg: string, data?: Record<string, unknown>) => { lines.push(JSON.stringify({ level, msg, ...data })); };
    assert.deepEqual(await revokeLeaseCredentials(store, e.lease, { log }), ['failed']);
    const [open] = await store.leaseCredentials(e.lease);
    assert.equal(open!.attempts, 1);
    assert.match(open!.last_error!, /HTTP 503 from 127\.0\.0\.1/);
    assert.ok(lines.some((l) => l.includes('not revoked')) && !lines.join('\n').includes(TOKEN), 'logged, without the token');
    const live = await leaseWith('ready');
    const swept = await revokePending(store, { log });
    assert.ok(swept.revoked >= 1 && swept.failed === 0, JSON.stringify(swept));
    assert.deepEqual(await store.leaseCredentials(e.lease), [], 'the pass revoked the one left open');
    assert.equal((await store.leaseCredentials(live.lease)).length, 1, 'a live lease\'s token is left alone');
  });
});
