import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import x11, { createX11Adapter, resolveOptions, X11_CAPABILITIES } from './index.ts';

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

  it('the default export is a defineAdapter plugin declaring every capability; the factory does no I/O', () => {
    assert.equal(x11.kind, 'adapter');
    assert.equal(x11.id, 'x11');
    assert.deepEqual([...x11.capabilities].sort(), [...X11_CAPABILITIES].sort());
    const a = createX11Adapter({ display: ':5' });
    assert.equal(typeof a.click, 'function');
    assert.equal(typeof a.release, 'function');
  });
});
