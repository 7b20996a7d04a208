// The built entries, as a server and third parties load them (run `npm run build` first).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { discoverPlugins } from '@vmhub/core/config';

it('@vmhub/conformance and ./fake resolve to dist with the documented exports', async () => {
  const kit = await import('@vmhub/conformance');
  for (const name of ['runProviderConformance', 'runAdapterConformance', 'connectRouter', 'makeTar', 'expectOk', 'expectError']) assert.equal(typeof (kit as Record<string, unknown>)[name], 'function', name);
  const fake = await import('@vmhub/conformance/fake');
  assert.deepEqual(fake.default.map((p: { kind: string; id: string }) => `${p.kind}:${p.id}`), ['provider:fake', 'adapter:fake', 'adapter:stub']);
  assert.match(import.meta.resolve('@vmhub/conformance/fake'), /\/dist\/fake\/index\.js$/);
});

it('plugin discovery loads @vmhub/conformance/fake by package name (array default export)', async () => {
  const found = await discoverPlugins({ from: import.meta.url, names: ['@vmhub/conformance/fake'], scan: false });
  const pkg = found.find((p) => p.package === '@vmhub/conformance/fake');
  assert.ok(pkg, JSON.stringify(found));
  assert.equal(pkg.error, undefined);
  assert.deepEqual(pkg.plugins.map((p) => `${p.kind}:${p.id}`), ['provider:fake', 'adapter:fake', 'adapter:stub']);
});

it('@vmhub/conformance/fake-provider loads the provider without any adapter code (for the reaper)', async () => {
  const { execFile } = await import('node:child_process');
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(s, c, next) { const r = next(s, c); seen.push(r.url); return r; } });
    const m = await import('@vmhub/conformance/fake-provider');
    console.log(JSON.stringify({ id: m.default.id, kind: m.default.kind, seen }));`;
  const out = await new Promise<string>((resolve, reject) => execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('..', import.meta.url).pathname, timeout: 20_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout))));
  const { id, kind, seen } = JSON.parse(out) as { id: string; kind: string; seen: string[] };
  assert.deepEqual([kind, id], ['provider', 'fake']);
  assert.ok(!seen.some((u) => /sharp|fake-adapter|stub-adapter|\/router\//.test(u)), seen.filter((u) => /sharp|adapter|router/.test(u)).join('\n'));
});
