import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { goldenNames, goldenTemplate, loadGolden, readyLabel, X11_READY } from './golden-manifest.ts';

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

describe('docker: golden folders (files, templates, stand-ins)', () => {
  it('every golden loads; its template (if any) names this provider and the golden tag', () => {
    for (const name of goldenNames()) {
      const g = loadGolden(name);
      const t = goldenTemplate(name);
      if (!t) continue;
      assert.equal(t.provider, 'docker');
      assert.equal(t.golden, g.tag, `${name}: the template names the image this manifest builds`);
      assert.match(t.id, /^[a-z0-9-]+$/);
      if (t.id.endsWith('-standin')) {
        assert.equal(t.standin, true, `${t.id} is a stand-in and must say so (standin: true)`);
        assert.match(t.description ?? '', /stand-in/i, `${t.id}: its description says it is a stand-in`);
      }
    }
  });

  it('files from a package that is not built make the golden unbuildable, naming the package, without failing to load', () => {
    for (const name of goldenNames()) {
      const g = loadGolden(name);
      for (const f of g.manifest.files ?? []) {
        if (!f.module) continue;
        const present = g.files.some((x) => x.dest === f.dest);
        if (!present) assert.match(g.unbuildable ?? '', new RegExp(f.module.split('/').slice(0, 2).join('/')));
      }
    }
  });

  it('the readiness label round-trips, and goldens without "ready" get the X11 probes', () => {
    const g = loadGolden('debian-x11');
    assert.deepEqual(JSON.parse(Buffer.from(readyLabel(g), 'base64').toString('utf8')), X11_READY);
  });
});
