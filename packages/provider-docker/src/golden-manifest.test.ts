import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { goldenNames, loadGolden } from './golden-manifest.ts';

describe('docker: golden manifests', () => {
  it('lists the goldens shipped under golden/ (folders with a manifest.json only)', () => {
    const names = goldenNames();
    assert.ok(names.includes('debian-x11'), names.join(','));
    assert.ok(!names.includes('lib'), 'golden/lib holds scripts, not an image');
  });

  it('an unknown or malformed name is NOT_FOUND listing the known goldens', () => {
    for (const name of ['nope', '../debian-x11', 'Debian-X11']) {
      assert.throws(() => loadGolden(name), (err: unknown) =>
        VmhubError.is(err) && err.code === 'NOT_FOUND' && err.message.includes(`"${name}"`) && /known: .*debian-x11/.test(err.message));
    }
  });

  it('the tag is the manifest hash, stable across loads', () => {
    const a = loadGolden('debian-x11'), b = loadGolden('debian-x11');
    assert.match(a.tag, /^vmhub\/debian-x11:[0-9a-f]{12}$/);
    assert.equal(a.tag, b.tag);
  });
});
