import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import type { AdapterSession, LeaseContext } from './adapter.ts';
import { CONTRACT_VERSION, defineAdapter, defineProvider, posixShellArgv } from './define.ts';
import { VmhubError } from './errors.ts';

const base = { id: 'demo', version: '1.0.0', contractVersion: 2 };
const lease: LeaseContext = {
  lease_id: 'l1', machine: { identity: 'vmhub-t-l1', external_id: 'e' }, template: { id: 't', provider: 'p', adapter: 'demo', os: 'linux', golden: 'g' },
  channel: async () => { throw new Error('no channel'); }, console: async () => { throw new Error('no console'); },
  connect: async () => { throw new Error('no ports'); }, forward: async () => { throw new Error('no ports'); },
};
const ctx = { ...lease, signal: new AbortController().signal };
const opens = (session: AdapterSession) => () => ({ open: () => session });

describe('core: defineAdapter', () => {
  it('speaks contract 2 and refuses another contract version, contract 1 included', () => {
    assert.equal(CONTRACT_VERSION, 2);
    assert.throws(() => defineAdapter({ ...base, contractVersion: 1, capabilities: [], create: opens({}) }), /built for contract version 1, this vmhub speaks 2/);
    assert.throws(() => defineAdapter({ ...base, contractVersion: 99, capabilities: [], create: opens({}) }), /contract version 99/);
  });
  it('refuses unknown capability ids, bad ids and a missing version', () => {
    assert.throws(() => defineAdapter({ ...base, capabilities: ['teleport' as never], create: opens({}) }), /unknown capability "teleport"/);
    assert.throws(() => defineAdapter({ ...base, id: 'Bad Id', capabilities: [], create: opens({}) }), /must match/);
    assert.throws(() => defineAdapter({ ...base, version: '', capabilities: [], create: opens({}) }), /readPackageVersion/);
  });
  it('requires every declared capability on the session, and nothing undeclared', async () => {
    const missing = defineAdapter({ ...base, capabilities: ['click'], create: opens({}) }).create();
    await assert.rejects(missing.open(lease), /declares "click" but its session does not implement click\(\)/);
    const extra = defineAdapter({ ...base, capabilities: [], create: opens({ click: async () => {} }) }).create();
    await assert.rejects(extra.open(lease), /implements click\(\) but the adapter does not declare "click"/);
  });
  it('dispatch requires verbs, validates their args, and runs them on the session', async () => {
    assert.throws(() => defineAdapter({ ...base, capabilities: ['dispatch'], create: opens({}) }), /declares "dispatch" but no verbs/);
    const mine = { greeting: 'hello' } as AdapterSession & { greeting: string };
    const a = defineAdapter<Record<string, never>, typeof mine>({ ...base, capabilities: ['dispatch'], verbs: { say: { description: 'say', args: Type.Object({ word: Type.String() }), run: async (_c, args, session) => `${session.greeting} ${args.word}` } }, create: () => ({ open: () => mine }) }).create();
    const s = await a.open(lease);
    assert.equal(await s.dispatch!(ctx, { verb: 'say', args: { word: 'hi' } }), 'hello hi');
    await assert.rejects(s.dispatch!(ctx, { verb: 'say', args: { word: 3 } }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    await assert.rejects(s.dispatch!(ctx, { verb: 'nope', args: {} }), /unknown verb "nope"/);
  });
  it('validates options with defaults and wraps thrown errors as VmhubError tagged with the plugin', async () => {
    const plugin = defineAdapter<{ display: string }>({
      ...base, capabilities: ['key'], options: Type.Object({ display: Type.String({ default: ':0' }) }, { additionalProperties: false }),
      create: (o) => ({ open: () => ({ key: async () => { throw new Error(`boom on ${o.display}`); } }) }),
    });
    assert.throws(() => plugin.create({ display: 5 as never }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    assert.throws(() => plugin.create({ displayName: ':1' } as never), (e: unknown) => VmhubError.is(e) && e.source === 'adapter-demo'
      && /\[adapter-demo\] options: unknown field "displayName"/.test(e.message) && /Fix adapters\.demo \(or a template's adapter_options\) in the vmhub config file/.test(e.hint));
    const s = await plugin.create().open(lease);
    await assert.rejects(s.key!(ctx, { keys: 'a' }), (e: unknown) => VmhubError.is(e) && e.code === 'INTERNAL' && e.source === 'adapter-demo' && /boom on :0/.test(e.message));
  });
  it('keeps VmhubError codes from plugins; an open() that throws becomes a tagged error', async () => {
    const s = await defineAdapter({ ...base, capabilities: ['key'], create: opens({ key: async () => { throw new VmhubError('INVALID_REQUEST', 'bad key'); } }) }).create().open(lease);
    await assert.rejects(s.key!(ctx, { keys: 'a' }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && e.source === 'adapter-demo');
    const broken = defineAdapter({ ...base, capabilities: [], create: () => ({ open: () => { throw new Error('no display'); } }) }).create();
    await assert.rejects(broken.open(lease), (e: unknown) => VmhubError.is(e) && e.source === 'adapter-demo' && /no display/.test(e.message));
  });
  it('each lease gets its own session; dispose runs once and a disposed session answers LEASE_EXPIRED', async () => {
    let made = 0; let disposed = 0;
    const a = defineAdapter({ ...base, capabilities: ['type'], create: () => ({ open: () => { made++; return { type: async () => {}, dispose: async () => { disposed++; throw new Error('cleanup hiccup'); } }; } }) }).create();
    const [s1, s2] = await Promise.all([a.open(lease), a.open({ ...lease, lease_id: 'l2' })]);
    assert.equal(made, 2);
    assert.equal(s2.lease_id, 'l2');
    await Promise.all([s1.dispose(), s1.dispose()]);
    assert.equal(disposed, 1, 'dispose ran once; its throw was swallowed');
    assert.equal(s1.disposed, true);
    await assert.rejects(s1.type!(ctx, { text: 'x' }), (e: unknown) => VmhubError.is(e) && e.code === 'LEASE_EXPIRED');
    await s2.type!(ctx, { text: 'x' });
  });
  it('shellArgv: optional, only with exec, synchronous; its answer is checked; default /bin/sh -c', async () => {
    const exec = async () => ({ exit_code: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: false, truncated: false });
    assert.deepEqual(posixShellArgv('echo hi'), ['/bin/sh', '-c', 'echo hi']);
    const plain = await defineAdapter({ ...base, capabilities: ['exec'], create: opens({ exec }) }).create().open(lease);
    assert.equal(plain.shellArgv, undefined, 'no shellArgv: the router runs posixShellArgv');
    const ps = { exec, shellArgv(command: string) { return [this.shell, '-Command', command]; }, shell: 'powershell.exe' };
    const s = await defineAdapter({ ...base, capabilities: ['exec'], create: opens(ps) }).create().open(lease);
    assert.deepEqual(s.shellArgv!('echo hi'), ['powershell.exe', '-Command', 'echo hi'], 'runs on the session object');
    await assert.rejects(defineAdapter({ ...base, capabilities: [], create: opens({ shellArgv: (c: string) => ['sh', '-c', c] }) }).create().open(lease), /implements shellArgv\(\) but the adapter does not declare "exec"/);
    await assert.rejects(defineAdapter({ ...base, capabilities: ['exec'], create: opens({ exec, shellArgv: '/bin/sh' as never }) }).create().open(lease), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && /shellArgv is string, not a function/.test(e.message));
    for (const bad of [[], [''], ['sh', 3], 'sh -c', Promise.resolve(['sh'])]) {
      const b = await defineAdapter({ ...base, capabilities: ['exec'], create: opens({ exec, shellArgv: () => bad as never }) }).create().open(lease);
      assert.throws(() => b.shellArgv!('x'), (e: unknown) => VmhubError.is(e) && e.code === 'INTERNAL' && e.source === 'adapter-demo' && /not an argv/.test(e.message), JSON.stringify(bad));
    }
    const thrower = await defineAdapter({ ...base, capabilities: ['exec'], create: opens({ exec, shellArgv: () => { throw new Error('no shell'); } }) }).create().open(lease);
    assert.throws(() => thrower.shellArgv!('x'), (e: unknown) => VmhubError.is(e) && e.source === 'adapter-demo' && /no shell/.test(e.message));
    await s.dispose();
    assert.throws(() => s.shellArgv!('x'), (e: unknown) => VmhubError.is(e) && e.code === 'LEASE_EXPIRED');
  });
});

describe('core: defineProvider', () => {
  const methods = { status: async () => ({ ok: true }), availability: async () => ({ availability: 'available' as const }), create: async () => ({ identity: 'i', external_id: 'e' }), ready: async () => {}, destroy: async () => 'destroyed' as const, list: async () => [] };
  it('invalid options name the config key to fix', () => {
    const p = defineProvider({ ...base, options: Type.Object({ dir: Type.Optional(Type.String()) }, { additionalProperties: false }), create: () => methods });
    assert.throws(() => p.create({ dri: '/x' } as never, { identityPrefix: 'vmhub-x-', log: () => {} }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST'
      && /unknown field "dri"/.test(e.message) && /Fix providers\.demo in the vmhub config file/.test(e.hint));
  });
  it('requires the lifecycle methods', () => {
    const p = defineProvider({ ...base, create: () => ({ ...methods, list: undefined as never }) });
    assert.throws(() => p.create(undefined, { identityPrefix: 'vmhub-x-', log: () => {} }), /required method list\(\)/);
  });
  it('wraps errors with the provider id', async () => {
    const p = defineProvider({ ...base, create: () => ({ ...methods, status: async () => { throw new Error('down'); } }) }).create(undefined, { identityPrefix: 'vmhub-x-', log: () => {} });
    await assert.rejects(p.status(), (e: unknown) => VmhubError.is(e) && e.source === 'provider-demo');
  });
  it('checks a template\'s provider_options against templateOptions, naming the key to fix', () => {
    const p = defineProvider({ ...base, templateOptions: Type.Object({ screen: Type.Optional(Type.String()) }, { additionalProperties: false }), create: () => methods });
    const t = { id: 'desk', provider: 'demo', adapter: 'x', os: 'linux', golden: 'g' };
    p.checkTemplate({ ...t, provider_options: { screen: '800x600x24' } });
    assert.throws(() => p.checkTemplate({ ...t, provider_options: { scren: '1' } }), (e: unknown) => VmhubError.is(e) && /unknown field "scren"/.test(e.message) && /templates\["desk"\]\.provider_options/.test(e.hint));
    defineProvider({ ...base, create: () => methods }).checkTemplate({ ...t, provider_options: { anything: 1 } });
  });
  it('goldens come through the spec with validated options; none when the provider builds none', async () => {
    const p = defineProvider<{ root?: string }>({
      ...base, options: Type.Object({ root: Type.Optional(Type.String()) }, { additionalProperties: false }), create: () => methods,
      goldens: (o) => ({ names: ['g1'], status: async (name) => ({ name, built: false, ref: `${o.root ?? '/default'}/${name}` }), build: async (name) => ({ name, built: true, ref: name, rebuilt: true }) }),
    });
    assert.deepEqual(p.goldens({ root: '/r' })!.names, ['g1']);
    assert.equal((await p.goldens({ root: '/r' })!.status('g1')).ref, '/r/g1');
    assert.throws(() => p.goldens({ rot: 1 } as never), /unknown field "rot"/);
    assert.equal(defineProvider({ ...base, create: () => methods }).goldens(), undefined);
  });
});
