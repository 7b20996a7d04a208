/**
 * The provider suite's machine checks (provider-suite.ts): what a provider does to a machine
 * itself, each where it has it. restart(), where restartSupport(template) says so: the ready
 * machine restarts, ready() resolves again, it is the same machine (state() "running", still
 * listed with its identity) and a forged identity is refused without touching it. stats(): every
 * figure it gives is a finite number ≥ 0, and one it cannot measure is left out (never NaN or -1).
 * logs(): an array of lines, at most `tail`, `truncated` a boolean.
 */
import { randomUUID } from 'node:crypto';
import type { TestContext } from 'node:test';
import { machineIdentity, type MachineRef, type Provider, type TemplateConfig } from '@vmhub/core';
import { check } from './expect.ts';

const STATS = ['cpu_percent', 'memory_bytes', 'memory_limit_bytes', 'disk_bytes', 'uptime_seconds'] as const;

export async function restartCheck(t: TestContext, provider: Provider, machine: MachineRef, template: TemplateConfig, instance: string, timeoutMs: number): Promise<void> {
  const support = provider.restartSupport?.(template);
  if (support === undefined || typeof support === 'string') { t.skip(`no restart for this template: ${support ?? 'the provider has no restartSupport()'}`); return; }
  check(typeof provider.restart === 'function', 'restartSupport() says yes but the provider lacks restart()', 'implement restart() (ProviderMethods in @vmhub/core), or answer restartSupport() with the reason');
  check(typeof support.graceful === 'boolean', `restartSupport() answered ${JSON.stringify(support)}`, 'answer {graceful: boolean} (is the guest asked before it is reset?) or the reason as a string');
  const forged = { ...machine, identity: machineIdentity(instance, randomUUID()) };
  const refused = await provider.restart!(forged, { template, hard: true, signal: AbortSignal.timeout(timeoutMs), stage: () => undefined }).then(() => undefined, (err: unknown) => err);
  check(refused !== undefined, 'restart() of a forged identity resolved', 're-read the machine by its identity before restarting it, like destroy(): refuse a machine that carries another');
  const moved = await provider.restart!(machine, { template, hard: false, signal: AbortSignal.timeout(timeoutMs), stage: () => undefined });
  const now = moved ?? machine;
  check(now.identity === machine.identity, `restart() returned identity "${now.identity}"`, 'a restarted machine keeps its identity');
  await provider.ready(now, { template, signal: AbortSignal.timeout(timeoutMs), stage: () => undefined });
  if (provider.state) {
    const st = await provider.state(now);
    check(st === 'running', `state() after restart() and ready() answered '${st}'`, 'restart in place: the machine runs again once ready() resolves');
  }
  check((await provider.list()).some((m) => m.identity === machine.identity), 'the restarted machine is no longer listed', 'keep the machine (and its identity) across a restart');
}

export async function statsLogsCheck(t: TestContext, provider: Provider, machine: MachineRef, template: TemplateConfig, timeoutMs: number): Promise<void> {
  if (!provider.stats && !provider.logs) { t.skip('the provider has neither stats() nor logs() (both optional)'); return; }
  if (provider.stats) {
    const s = await provider.stats(machine, { template, signal: AbortSignal.timeout(timeoutMs) }) as Record<string, unknown>;
    for (const [k, v] of Object.entries(s)) {
      check((STATS as readonly string[]).includes(k), `stats() returned an unknown field "${k}"`, `return only ${STATS.join(', ')}`);
      check(typeof v === 'number' && Number.isFinite(v) && v >= 0, `stats() returned ${k}: ${JSON.stringify(v)}`, 'leave out a figure you cannot measure (never NaN, -1 or 0 for "unknown")');
    }
  }
  if (provider.logs) {
    const l = await provider.logs(machine, { template, tail: 5, max_bytes: 4096, signal: AbortSignal.timeout(timeoutMs) });
    check(Array.isArray(l.lines) && l.lines.every((x) => typeof x === 'string') && l.lines.length <= 5, `logs({tail: 5}) returned ${JSON.stringify(l.lines)?.slice(0, 200)}`, 'return at most `tail` lines, each a string');
    check(typeof l.truncated === 'boolean' && typeof l.source === 'string', 'logs() returned no truncated flag or source', 'say what the log is (source) and whether earlier lines were left out (truncated)');
  }
}
