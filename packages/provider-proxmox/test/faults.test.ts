/**
 * Faults with an Administrator token: see helpers/fault-scenario.ts. FAULT_SEED=<n> picks another
 * fault pattern.
 */
import { after, before, describe, it } from 'node:test';
import type { Provider } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { runFaultScenario } from './helpers/fault-scenario.ts';
import { providerFor, startSim, template } from './helpers/setup.ts';

describe('proxmox: faults (20 % of requests fail, 50 leases)', () => {
  let sim: PveSimulator;
  let provider: Provider;

  before(async () => {
    sim = await startSim({ seed: Number(process.env.FAULT_SEED ?? 7), guest: { agentDelayMs: 100 }, nodes: [{ name: 'pve1', memoryTotal: 512 * 1024 ** 3 }] });
    provider = providerFor(sim, 'flt', { request_timeout_ms: 1000, retries: 4, retry_base_ms: 25, lock_retries: 5, task_poll_ms: 50, ready_poll_ms: 100 });
  });
  after(async () => {
    await provider?.close?.();
    await sim?.close();
  });

  it('every lease ends ready or with a typed error, and nothing tagged remains after teardown', async () => {
    await runFaultScenario(sim, provider, template({ ready_timeout_seconds: 60 }, { channel: 'agent' }), 'flt', 'admin token');
  });
});
