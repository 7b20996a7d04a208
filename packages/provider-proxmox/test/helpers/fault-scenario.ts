/**
 * The fault scenario shared by the fault tests: ~20 % of all API requests fail (500, 596, slow
 * answers past the client timeout, connections dropped before or after the server acted) while
 * 50 leases (8 at a time) are created and made ready. Every lease must end ready or with a typed
 * VmhubError; after destroying them and one reaper pass (list → destroy) no VM with the
 * instance's identity — tagged or only described — may remain.
 */
import assert from 'node:assert/strict';
import { VmhubError, type MachineRef, type Provider, type TemplateConfig } from '@vmhub/core';
import type { PveSimulator } from '@vmhub/pve-simulator';
import { lease } from './setup.ts';

const LEASES = 50;
const CONCURRENCY = 8;

async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

export async function runFaultScenario(sim: PveSimulator, provider: Provider, tpl: TemplateConfig, instance: string, label: string): Promise<void> {
  const p = 0.045; // five independent 4.5 % faults ≈ 20 % of requests
  for (const spec of [
    { kind: '500' as const, probability: p },
    { kind: '596' as const, probability: p },
    { kind: 'slow' as const, probability: p, delayMs: 1500 },
    { kind: 'drop' as const, probability: p, phase: 'before' as const },
    { kind: 'drop' as const, probability: p, phase: 'after' as const },
  ]) sim.faults.inject(spec);

  const t0 = Date.now();
  const outcomes: { machine?: MachineRef; result: string }[] = [];
  const failures: string[] = [];
  await pool(Array.from({ length: LEASES }, () => lease(instance)), CONCURRENCY, async (l) => {
    const out: { machine?: MachineRef; result: string } = { result: 'pending' };
    outcomes.push(out);
    try {
      out.machine = await provider.create({ ...l, template: tpl, signal: AbortSignal.timeout(60_000) });
      await provider.ready(out.machine, { signal: AbortSignal.timeout(60_000), stage: () => undefined, template: tpl });
      out.result = 'ready';
    } catch (err) {
      assert.ok(VmhubError.is(err), `untyped failure: ${String(err)}`);
      out.result = err.code;
      failures.push(err.message);
    }
  });
  const provisionMs = Date.now() - t0;

  let destroyFailures = 0;
  await pool(outcomes.filter((o) => o.machine), CONCURRENCY, async (o) => {
    try {
      const r = await provider.destroy(o.machine as MachineRef);
      assert.ok(['destroyed', 'already_gone'].includes(r), r);
    } catch (err) {
      assert.ok(VmhubError.is(err), `untyped destroy failure: ${String(err)}`);
      destroyFailures++;
      failures.push(`destroy: ${err.message}`);
    }
  });
  const fired = sim.faults.active().reduce((n, f) => n + f.fired, 0);
  const total = sim.state.requests.total;
  sim.faults.clear();

  // Reaper pass: whatever still carries this instance's prefix goes.
  const leftovers = await provider.list();
  for (const m of leftovers) assert.equal(await provider.destroy(m), 'destroyed');

  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.result] = (counts[o.result] ?? 0) + 1;
  process.stderr.write(`[provider-proxmox] faults (${label}): ${LEASES} leases in ${provisionMs} ms → ${JSON.stringify(counts)}; ${fired}/${total} requests faulted (${Math.round((100 * fired) / total)} %); destroy failures ${destroyFailures}; reaper removed ${leftovers.length}; endpoints ${sim.state.endpointsExercised().length}\n`);

  for (const f of failures) process.stderr.write(`  failed: ${f.slice(0, 300)}\n`);
  assert.equal(outcomes.length, LEASES);
  assert.ok(outcomes.every((o) => o.result !== 'pending'));
  assert.ok(fired / total > 0.12, `fault rate too low: ${fired}/${total}`);
  assert.ok((counts.ready ?? 0) >= LEASES * 0.6, `too few leases became ready: ${JSON.stringify(counts)}`);
  const remaining = sim.state.vms().filter((v) => !v.template && (v.tags.some((t) => t.startsWith(`vmhub-${instance}-`)) || String(v.config.description ?? '').includes(`vmhub-${instance}-`)));
  assert.deepEqual(remaining.map((v) => `${v.vmid} ${v.tagsRaw} ${v.lock ?? ''}`), []);
  assert.deepEqual(sim.violations, []);
}
