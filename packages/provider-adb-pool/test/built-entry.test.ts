/**
 * adb-pool: the built entry (dist/) — what a server installs: the provider, its factory and
 * template, option validation at create (no I/O), and the unconfigured status.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

const built = await import('../dist/index.js');
const context = { identityPrefix: 'vmhub-built-', log: () => undefined };

describe('adb-pool: built entry', () => {
  it('exports the provider, its factory and the android-device template', () => {
    assert.equal(built.default.kind, 'provider');
    assert.equal(built.default.id, 'adb-pool');
    assert.equal(typeof built.createAdbPoolProvider, 'function');
    const t = built.default.templates[0];
    assert.deepEqual({ id: t.id, provider: t.provider, adapter: t.adapter, os: t.os }, { id: 'android-device', provider: 'adb-pool', adapter: 'android', os: 'android' });
  });

  it('refuses unknown options, bad addresses and duplicate device names at create', () => {
    const code = (fn: () => unknown) => { try { fn(); return 'none'; } catch (e) { return (e as { code?: string }).code; } };
    assert.equal(code(() => built.createAdbPoolProvider({ bogus: 1 } as never, context)), 'INVALID_REQUEST');
    assert.equal(code(() => built.createAdbPoolProvider({ devices: [{ address: 'no-port' }] } as never, context)), 'INVALID_REQUEST');
    assert.equal(code(() => built.createAdbPoolProvider({ devices: [{ address: '10.0.0.1:5555', name: 'a' }, { address: '10.0.0.2:5555', name: 'a' }] } as never, context)), 'INVALID_REQUEST');
  });

  it('a pool without devices is "not configured", and its template unavailable with the reason', async () => {
    const p = built.createAdbPoolProvider({ state_dir: '/nonexistent/vmhub-adb-pool' }, context);
    const s = await p.status();
    assert.deepEqual({ ok: s.ok, configured: s.configured }, { ok: false, configured: false });
    assert.match(s.reason ?? '', /providers\.adb-pool\.devices/);
    const a = await p.availability(built.default.templates[0]);
    assert.equal(a.availability, 'unavailable');
    assert.deepEqual(await p.list(), [], 'no claims directory: nothing owned');
  });

  it('template provider_options: only `devices` (names) is accepted', () => {
    const t = { ...built.default.templates[0], provider_options: { devices: ['x'] } };
    assert.doesNotThrow(() => built.default.checkTemplate(t));
    assert.throws(() => built.default.checkTemplate({ ...t, provider_options: { serials: ['x'] } }), (e: any) => e.code === 'INVALID_REQUEST');
  });
});
