import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LeaseContext } from './adapter.ts';
import { contractProblem, currentPlugin, inContractWindow, isShimmed, OLDEST_CONTRACT } from './contract-window.ts';
import { CONTRACT_VERSION, defineAdapter, type AdapterPlugin, type ProviderPlugin } from './define.ts';
import { VmhubError } from './errors.ts';

const lease: LeaseContext = {
  lease_id: 'l1', machine: { identity: 'vmhub-t-l1', external_id: 'e' }, template: { id: 't', provider: 'p', adapter: 'one', os: 'linux', golden: 'g' },
  channel: async () => { throw new Error('no channel'); }, console: async () => { throw new Error('no console'); },
  connect: async () => { throw new Error('no ports'); }, forward: async () => { throw new Error('no ports'); },
};
const ctx = { ...lease, signal: new AbortController().signal };

/** A plugin object as a contract-1 @vmhub/core made it: methods on the instance, release per lease. */
function contractOne(instance: Record<string, unknown>, capabilities: string[] = ['exec']): AdapterPlugin {
  const header = { kind: 'adapter' as const, id: 'one', version: '1.0.0', contractVersion: 1, capabilities: capabilities as never[], verbs: [] };
  return { ...header, create: () => ({ ...header, ...instance }) } as unknown as AdapterPlugin;
}

describe('core: the contract window', () => {
  it('serves the current contract and the one before it; names the fix for the rest', () => {
    assert.equal(OLDEST_CONTRACT, CONTRACT_VERSION - 1);
    assert.equal(inContractWindow(CONTRACT_VERSION), true);
    assert.equal(inContractWindow(CONTRACT_VERSION - 1), true);
    for (const v of [CONTRACT_VERSION - 2, CONTRACT_VERSION + 1, 1.5, '2', undefined]) assert.equal(inContractWindow(v), false, String(v));
    assert.match(contractProblem('adapter', 'x', CONTRACT_VERSION - 2)!, /install a version of the plugin built for contract 2/);
    assert.match(contractProblem('adapter', 'x', CONTRACT_VERSION + 1)!, /upgrade vmhub/);
    assert.equal(contractProblem('adapter', 'x', CONTRACT_VERSION - 1), undefined);
  });

  it('leaves a current plugin as it is', () => {
    const current = defineAdapter({ id: 'now', version: '1.0.0', contractVersion: 2, capabilities: [], create: () => ({ open: () => ({}) }) });
    assert.equal(currentPlugin(current), current);
    assert.equal(isShimmed(current), false);
  });

  it('1 → 2: a contract-1 adapter gets sessions whose calls reach its methods with their lease, and dispose releases the lease once', async () => {
    const released: string[] = [];
    const plugin = currentPlugin(contractOne({
      exec: async (c: { lease_id: string }, input: { argv: string[] }) => ({ exit_code: 0, stdout: `${c.lease_id}:${input.argv.join(' ')}`, stderr: '', timed_out: false, truncated: false }),
      release: async (id: string) => { released.push(id); },
    })) as AdapterPlugin;
    assert.equal(plugin.contractVersion, 1, 'it still says what it was built for');
    assert.equal(isShimmed(plugin), true);
    const session = await plugin.create().open(lease);
    assert.equal((await session.exec!(ctx, { argv: ['echo', 'hi'], timeout_ms: 1000, max_output_bytes: 100 } as never)).stdout, 'l1:echo hi');
    await Promise.all([session.dispose(), session.dispose()]);
    assert.deepEqual(released, ['l1']);
    await assert.rejects(session.exec!(ctx, { argv: ['x'] } as never), (e: unknown) => VmhubError.is(e) && e.code === 'LEASE_EXPIRED');
  });

  it('1 → 2: errors are typed and tagged with the plugin; declared must be implemented', async () => {
    const throwing = currentPlugin(contractOne({ exec: async () => { throw new Error('guest went away'); } })) as AdapterPlugin;
    const session = await throwing.create().open(lease);
    await assert.rejects(session.exec!(ctx, { argv: ['x'] } as never), (e: unknown) => VmhubError.is(e) && e.source === 'adapter-one' && /guest went away/.test(e.message));
    const missing = currentPlugin(contractOne({}, ['click'])) as AdapterPlugin;
    assert.throws(() => missing.create(), /\(contract 1\) declares "click" but does not implement click\(\)/);
    const undeclared = currentPlugin(contractOne({ exec: async () => undefined, click: async () => undefined })) as AdapterPlugin;
    assert.throws(() => undeclared.create(), /implements click\(\) but does not declare "click"/);
  });

  it('1 → 2: a contract-1 provider gains goldens() and checkTemplate()', () => {
    const v1 = { kind: 'provider', id: 'old', version: '1.0.0', contractVersion: 1, templates: [], create: () => ({}) } as unknown as ProviderPlugin;
    const lifted = currentPlugin(v1) as ProviderPlugin;
    assert.equal(lifted.goldens(), undefined);
    assert.doesNotThrow(() => lifted.checkTemplate({ id: 't', provider: 'old', adapter: 'a', os: 'linux', golden: 'g' }));
    assert.equal(lifted.contractVersion, 1);
  });
});
