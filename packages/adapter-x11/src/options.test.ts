import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import x11, { ADAPTER_VERSION, createX11Adapter, resolveOptions, X11_CAPABILITIES } from './index.ts';

describe('x11: options and plugin', () => {
  it('fills defaults; explicit display beats VMHUB_X11_DISPLAY beats ":0"', () => {
    assert.equal(resolveOptions({}, {}).display, ':0');
    assert.equal(resolveOptions({}, { VMHUB_X11_DISPLAY: ':7' }).display, ':7');
    assert.equal(resolveOptions({ display: ':3' }, { VMHUB_X11_DISPLAY: ':7' }).display, ':3');
    assert.equal(resolveOptions({}, {}).type_delay_ms, 12);
    assert.throws(() => resolveOptions({}, { VMHUB_X11_DISPLAY: 'nope' }), /VMHUB_X11_DISPLAY/);
    assert.throws(() => resolveOptions({ display: '0; rm' }, {}), /INVALID|display|pattern/i);
    assert.throws(() => resolveOptions({ bogus: 1 } as never, {}), /unknown field "bogus"/);
  });

  it('the default export is a defineAdapter plugin declaring every capability; the factory does no I/O', async () => {
    assert.equal(x11.kind, 'adapter');
    assert.equal(x11.id, 'x11');
    assert.deepEqual([...x11.capabilities].sort(), [...X11_CAPABILITIES].sort());
    assert.equal(x11.contractVersion, 2);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.equal(x11.version, pkg.version, 'the version is package.json\'s');
    assert.equal(ADAPTER_VERSION, pkg.version);
    const a = createX11Adapter({ display: ':5' });
    // Neither the factory nor open() touches the guest: a channel that throws is never asked for.
    let asked = 0;
    const lease = {
      lease_id: 'no-io', machine: { identity: 'vmhub-test-x11', external_id: 'none' },
      template: { id: 't', provider: 'none', adapter: 'x11', os: 'linux', golden: 'none' },
      channel: async () => { asked++; throw new Error('no channel'); },
      console: async () => { asked++; throw new Error('no console'); },
      connect: async () => { throw new Error('no ports'); },
      forward: async () => { throw new Error('no ports'); },
    };
    const s = await a.open(lease);
    assert.equal(typeof s.click, 'function');
    assert.equal('release' in s, false, 'contract 2: the session ends with dispose(), there is no release()');
    await s.dispose();
    assert.equal(asked, 0);
  });
});
