import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';

const entry = new URL('../dist/index.js', import.meta.url);

describe('pve-simulator: built entry', () => {
  it('starts from dist, pins its certificate, and serves one cluster on two endpoints', async () => {
    assert.ok(existsSync(entry), 'dist/index.js is missing: run `npx tsc -p tsconfig.build.json` in packages/pve-simulator first');
    const mod = (await import(entry.href)) as typeof import('./index.ts');
    mod.loadSchema('9');
    const t0 = performance.now();
    const sim = await mod.startPveSimulator();
    const coldMs = performance.now() - t0;
    const t1 = performance.now();
    const warm = await mod.startPveSimulator({ tls: false });
    const warmMs = performance.now() - t1;
    await warm.close();
    try {
      // after the first schema load: cold includes generating the certificate with openssl
      assert.ok(coldMs < 1000 && warmMs < 300, `startup took ${coldMs.toFixed(0)} ms cold, ${warmMs.toFixed(0)} ms warm`);
      const second = await sim.addEndpoint();
      assert.notEqual(second.port, sim.port);
      const a = mod.simClient(sim);
      const b = mod.simClient({ ...sim, apiUrl: second.apiUrl });
      const clone = await a.post('/nodes/pve1/qemu/9000/clone', { newid: 123 });
      assert.equal(clone.status, 200);
      const seen = await b.get('/nodes/pve1/qemu/123/status/current');
      assert.equal(seen.body.data.lock, 'clone', 'both endpoints share the cluster state');
      assert.deepEqual([...new Set(sim.state.requests.log.map((r) => r.listener))].sort(), [0, 1]);
      await second.close();
      await assert.rejects(b.get('/version'), /ECONNREFUSED/);
      assert.equal((await a.get('/version')).status, 200);
      assert.deepEqual(sim.violations, []);
    } finally {
      await sim.close();
    }
  });
});
