// Two "hosts" (network namespaces) reach a PostgreSQL listening on their links' root ends, and
// nothing else: the root namespace's loopback is not theirs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { createNetwork, startPostgres } from '../src/index.ts';

describe('postgres-testing: hosts as network namespaces', () => {
  const net = createNetwork(2);
  let pg: Awaited<ReturnType<typeof startPostgres>> | undefined;
  after(() => { pg?.destroy(); net.destroy(); });

  it('each host reaches PostgreSQL through its gateway, not through the root loopback', async () => {
    pg = await startPostgres({ listen: [...net.gateways], allow: [net.cidr] });
    const env = { ...process.env, PGPASSWORD: 'vmhub-test-password' };
    for (const h of net.hosts) {
      const who = h.exec(['psql', pg.url('postgres', h.gateway), '-tAqc', 'select inet_client_addr()'], { env }).trim();
      assert.equal(who, h.ip, 'the server sees the host\'s own address');
      assert.throws(() => h.exec(['psql', pg!.url('postgres'), '-tAqc', 'select 1'], { env, timeoutMs: 20_000 }), /Connection refused|could not connect/);
    }
  });

  it('a host cut off its link cannot connect; back up, it can', () => {
    const h = net.hosts[0]!;
    const env = { ...process.env, PGPASSWORD: 'vmhub-test-password', PGCONNECT_TIMEOUT: '2' };
    h.setLink(false);
    assert.throws(() => h.exec(['psql', pg!.url('postgres', h.gateway), '-tAqc', 'select 1'], { env, timeoutMs: 20_000 }));
    h.setLink(true);
    assert.equal(h.exec(['psql', pg!.url('postgres', h.gateway), '-tAqc', 'select 1'], { env }).trim(), '1');
  });

  it('destroy() removes the namespaces', () => {
    const names = net.hosts.map((h) => h.name);
    net.destroy();
    const left = execFileSync('ip', ['netns', 'list']).toString();
    for (const n of names) assert.ok(!left.includes(n), `${n} still listed`);
  });
});
