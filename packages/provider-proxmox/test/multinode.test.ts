/**
 * Several endpoints from the seed's env (VMHUB_NODES + VMHUB_NODE_<ID>_*): each endpoint talks
 * with its own token (a per-node token wins over PVE_TOKEN), status lists every node, clones land
 * where the template constraints say, list and destroy work across endpoints.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { createProxmoxProvider } from '../src/index.ts';
import { context, lease, startSim, template } from './helpers/setup.ts';

describe('proxmox: multi-node (VMHUB_NODES)', () => {
  let a: PveSimulator;
  let b: PveSimulator;
  const fast = { task_poll_ms: 40, ready_poll_ms: 100, retry_base_ms: 20, request_timeout_ms: 5000, retries: 1, lock_retries: 3, ciuser: 'vmhub' };
  const envFor = (extra: Record<string, string> = {}): Record<string, string> => ({
    VMHUB_NODES: 'alpha,beta',
    PVE_HOST: a.hostPort, PVE_TOKEN_ID: a.token.tokenId, PVE_TOKEN: a.token.secret,
    VMHUB_NODE_BETA_BASE_URL: `https://${b.hostPort}`, VMHUB_NODE_BETA_TOKEN: b.token.secret,
    PVE_FINGERPRINT: a.certificate?.fingerprint256 ?? '',
    ...extra,
  });

  before(async () => {
    [a, b] = await Promise.all([startSim({ nodes: [{ name: 'pvea' }] }), startSim({ nodes: [{ name: 'pveb' }] })]);
    assert.equal(a.certificate?.fingerprint256, b.certificate?.fingerprint256, 'both simulators share the process certificate');
  });
  after(async () => {
    await a?.close();
    await b?.close();
  });

  it('each endpoint uses its own token; status lists all nodes', async () => {
    const p = createProxmoxProvider(fast, context('mn'), envFor());
    const st = await p.status();
    assert.deepEqual(st.nodes?.map((n) => [n.id, n.status]), [['alpha/pvea', 'online'], ['beta/pveb', 'online']]);
    await p.close?.();
  });

  it('a per-node token beats PVE_TOKEN (a wrong one makes only that node unreachable)', async () => {
    const p = createProxmoxProvider(fast, context('mn'), envFor({ VMHUB_NODE_ALPHA_TOKEN: 'wrong-secret' }));
    const st = await p.status();
    assert.deepEqual(st.nodes?.map((n) => [n.id, n.status]), [['alpha', 'unreachable'], ['beta/pveb', 'online']]);
    assert.match(st.nodes?.[0].detail ?? '', /authentication failed/);
    await p.close?.();
  });

  it('clones go where provider_options.endpoints says; list and destroy span endpoints', async () => {
    const p = createProxmoxProvider(fast, context('mn'), envFor());
    const onB = await p.create({ ...lease('mn'), template: template({}, { endpoints: ['beta'] }), signal: AbortSignal.timeout(20_000) });
    const onA = await p.create({ ...lease('mn'), template: template({}, { endpoints: ['alpha'] }), signal: AbortSignal.timeout(20_000) });
    assert.deepEqual([onA.node, onA.details?.endpoint, onB.node, onB.details?.endpoint], ['pvea', 'alpha', 'pveb', 'beta']);
    assert.ok(b.state.vm(Number(onB.external_id))?.tags.includes(onB.identity));
    assert.equal((await p.list()).length, 2);
    assert.equal(await p.destroy(onB), 'destroyed');
    assert.equal(await p.destroy(onA), 'destroyed');
    assert.equal(b.state.vms().filter((v) => !v.template).length, 0);
    assert.equal(a.state.vms().filter((v) => !v.template).length, 0);
    await p.close?.();
  });
});
