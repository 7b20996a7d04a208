import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { CONTRACT_VERSION, defineAdapter, defineProvider } from './define.ts';
import { VmhubError } from './errors.ts';

const base = { id: 'demo', version: '1.0.0', contractVersion: CONTRACT_VERSION };

describe('core: defineAdapter', () => {
  it('refuses another contract version', () => {
    assert.throws(() => defineAdapter({ ...base, contractVersion: 99, capabilities: [], create: () => ({}) }), /contract version 99/);
  });
  it('refuses unknown capability ids and bad ids', () => {
    assert.throws(() => defineAdapter({ ...base, capabilities: ['teleport' as never], create: () => ({}) }), /unknown capability "teleport"/);
    assert.throws(() => defineAdapter({ ...base, id: 'Bad Id', capabilities: [], create: () => ({}) }), /must match/);
  });
  it('requires every declared capability to be implemented, and nothing undeclared', () => {
    const missing = defineAdapter({ ...base, capabilities: ['click'], create: () => ({}) });
    assert.throws(() => missing.create(), /declares "click" but does not implement click\(\)/);
    const extra = defineAdapter({ ...base, capabilities: [], create: () => ({ click: async () => {} }) });
    assert.throws(() => extra.create(), /implements click\(\) but does not declare "click"/);
  });
  it('dispatch requires verbs and validates their args', async () => {
    assert.throws(() => defineAdapter({ ...base, capabilities: ['dispatch'], create: () => ({}) }), /declares "dispatch" but no verbs/);
    const a = defineAdapter({ ...base, capabilities: ['dispatch'], verbs: { say: { description: 'say', args: Type.Object({ word: Type.String() }), run: async (_c, args) => args.word } }, create: () => ({}) }).create();
    assert.equal(await a.dispatch!({} as never, { verb: 'say', args: { word: 'hi' } }), 'hi');
    await assert.rejects(a.dispatch!({} as never, { verb: 'say', args: { word: 3 } }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    await assert.rejects(a.dispatch!({} as never, { verb: 'nope', args: {} }), /unknown verb "nope"/);
  });
  it('validates options with defaults and wraps thrown errors as VmhubError tagged with the plugin', async () => {
    const plugin = defineAdapter<{ display: string }>({
      ...base, capabilities: ['key'], options: Type.Object({ display: Type.String({ default: ':0' }) }, { additionalProperties: false }),
      create: (o) => ({ key: async () => { throw new Error(`boom on ${o.display}`); } }),
    });
    assert.throws(() => plugin.create({ display: 5 as never }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    assert.throws(() => plugin.create({ displayName: ':1' } as never), (e: unknown) => VmhubError.is(e) && e.source === 'adapter-demo'
      && /\[adapter-demo\] options: unknown field "displayName"/.test(e.message) && /Fix adapters\.demo \(or a template's adapter_options\) in the vmhub config file/.test(e.hint));
    const a = plugin.create();
    await assert.rejects(a.key!({} as never, { keys: 'a' }), (e: unknown) => VmhubError.is(e) && e.code === 'INTERNAL' && e.source === 'adapter-demo' && /boom on :0/.test(e.message));
  });
  it('keeps VmhubError codes from plugins', async () => {
    const a = defineAdapter({ ...base, capabilities: ['key'], create: () => ({ key: async () => { throw new VmhubError('INVALID_REQUEST', 'bad key'); } }) }).create();
    await assert.rejects(a.key!({} as never, { keys: 'a' }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST' && e.source === 'adapter-demo');
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
});
