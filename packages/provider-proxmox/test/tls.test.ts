/**
 * TLS trust against the simulator's self-signed HTTPS: the pinned fingerprint and the CA are
 * accepted, a wrong fingerprint is refused (no request reaches the server), no trust at all is
 * refused, and skipping verification works only with the explicit opt-in.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { VmhubError } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { lease, providerFor, startSim, template } from './helpers/setup.ts';

describe('proxmox: TLS against the simulator', () => {
  let sim: PveSimulator;
  before(async () => { sim = await startSim(); });
  after(async () => { await sim?.close(); });

  it('right fingerprint and the CA are accepted', async () => {
    for (const trust of [{ fingerprint: sim.certificate?.fingerprint256 }, { fingerprint: undefined, ca: sim.certificate?.pem }]) {
      const p = providerFor(sim, 'tls', trust);
      assert.equal((await p.status()).ok, true, JSON.stringify(Object.keys(trust)));
      await p.close?.();
    }
  });

  it('a wrong fingerprint is refused before any request is served', async () => {
    const before = sim.state.requests.total;
    const p = providerFor(sim, 'tls', { fingerprint: 'AB:'.repeat(31) + 'AB' });
    const st = await p.status();
    assert.equal(st.ok, false);
    assert.match(st.nodes?.[0].detail ?? '', /fingerprint/);
    await assert.rejects(p.create({ ...lease('tls'), template: template(), signal: AbortSignal.timeout(5000) }), (e: unknown) => VmhubError.is(e));
    assert.equal(sim.state.requests.total, before, 'the simulator served nothing');
    await p.close?.();
  });

  it('no trust configured refuses the self-signed certificate; insecure_skip_verify: true accepts it', async () => {
    const none = providerFor(sim, 'tls', { fingerprint: undefined, retries: 0 });
    const st = await none.status();
    assert.equal(st.ok, false);
    assert.match(st.nodes?.[0].detail ?? '', /certificate/i);
    await none.close?.();
    const insecure = providerFor(sim, 'tls', { fingerprint: undefined, insecure_skip_verify: true });
    assert.equal((await insecure.status()).ok, true);
    await insecure.close?.();
  });
});
