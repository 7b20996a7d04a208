import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import { readdirSync, readFileSync } from 'node:fs';
import { GOLDEN_DIR, goldenNames, goldenRoots, goldenTemplate, loadGolden, readyLabel, standinGoldensAbsent, standinGoldensRoot, X11_READY } from './golden-manifest.ts';

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

describe('docker: stand-in goldens live outside the published package', () => {
  it('golden/ (what the tarball ships) holds only real goldens; every stand-in comes from @vmhub/standin-goldens', () => {
    const shipped = readdirSync(GOLDEN_DIR);
    assert.deepEqual(shipped.filter((f) => /standin/.test(f)), [], `golden/ ships no stand-in: ${shipped.join(', ')}`);
    const root = standinGoldensRoot();
    assert.ok(root, 'in a checkout @vmhub/standin-goldens resolves (a devDependency)');
    assert.equal(standinGoldensAbsent(), undefined);
    assert.deepEqual(goldenRoots().map((r) => r.package), ['@vmhub/provider-docker', '@vmhub/standin-goldens']);
    const standins = goldenNames().filter((n) => goldenTemplate(n)?.standin);
    assert.deepEqual(standins, ['android-standin', 'hyprland-standin', 'macos-standin', 'windows-standin']);
    for (const n of standins) assert.ok(readdirSync(root.dir).includes(n), `${n} is in ${root.dir}`);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
      assert.deepEqual(Object.keys(pkg[field] ?? {}).filter((d) => /standin|@vmhub\/rfb/.test(d)), [], `${field} names no stand-in`);
    }
  });

  it('a stand-in golden builds from both roots: its own files, files of the real goldens it names, the stand-in peers it bundles', () => {
    const hypr = loadGolden('hyprland-standin');
    assert.equal(hypr.unbuildable, undefined);
    const sway = loadGolden('wayland-sway');
    assert.deepEqual(hypr.scripts.session, sway.scripts.session, '../wayland-sway/session.sh is wayland-sway\'s, in golden/');
    for (const name of ['windows-standin', 'macos-standin']) {
      const g = loadGolden(name);
      assert.equal(g.unbuildable, undefined, `${name}: ${g.unbuildable}`);
      const fromModule = (g.manifest.files ?? []).filter((f) => f.module);
      assert.ok(fromModule.length > 0 && fromModule.every((f) => g.files.some((x) => x.dest === f.dest && x.data.length > 0)), `${name}: its peer's built file is in the image`);
    }
  });
});
