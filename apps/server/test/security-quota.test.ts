// Quotas count the authenticated principal. Over HTTP each named token is its own principal: an
// agent cannot use up another's quota by writing its name as `owner`, nor escape its own by
// inventing owners. Through the built server, with the official SDK client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sandbox, startHttp, type HttpServer, type Sandbox } from './harness.ts';

const TOKENS = { ci: 'tok-quota-ci-7f3a91', ops: 'tok-quota-ops-2c4d8e' };
let box: Sandbox;
let server: HttpServer;
let url = '';

async function client(token: string): Promise<Client> {
  const c = new Client({ name: 'quota', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return c;
}
const create = async (c: Client, owner: string, request_id: string) => c.callTool({ name: 'vm_lease_create', arguments: { template: 'fake-desktop', owner, request_id } }) as Promise<{ isError?: boolean; structuredContent?: any }>;

before(async () => {
  box = sandbox({ leases: { max_per_owner: 2, max_total: 50 }, http: { tokens: [{ principal: 'ci-agent', token_env: 'VMHUB_TOKEN_CI' }, { principal: 'ops', token_env: 'VMHUB_TOKEN_OPS' }] } });
  server = await startHttp(box, { HOME: box.dir, VMHUB_LOG_LEVEL: 'info', VMHUB_TOKEN_CI: TOKENS.ci, VMHUB_TOKEN_OPS: TOKENS.ops });
  url = server.url;
});
after(async () => { await server?.stop(); box.cleanup(); });

describe('security: quotas count the principal', () => {
  it('naming another principal as owner uses up only your own quota; inventing owners does not escape it', async (t) => {
    const ci = await client(TOKENS.ci);
    const ops = await client(TOKENS.ops);
    const tally = { attempts: 0, created: 0, refused: 0 };
    for (let i = 0; i < 6; i++) {
      const r = await create(ci, i % 2 ? 'ops' : `made-up-${i}`, `ci-${i}`);
      tally.attempts++;
      if (r.isError) { assert.equal(r.structuredContent.code, 'QUOTA_EXCEEDED'); assert.match(r.structuredContent.message, /principal "ci-agent"/); tally.refused++; } else tally.created++;
    }
    assert.equal(tally.created, 2, 'ci-agent got exactly its 2');
    const own = [await create(ops, 'ops', 'ops-1'), await create(ops, 'ops', 'ops-2'), await create(ops, 'ci-agent', 'ops-3')];
    assert.deepEqual(own.map((r) => r.structuredContent?.code ?? 'ok'), ['ok', 'ok', 'QUOTA_EXCEEDED'], 'ops still has its own 2, whatever ci-agent wrote as owner');
    t.diagnostic(`quota: ${tally.attempts + own.length} creates, ${tally.created + 2} created, ${tally.refused + 1} QUOTA_EXCEEDED, 0 over quota`);
    await ci.close();
    await ops.close();
  });
});
