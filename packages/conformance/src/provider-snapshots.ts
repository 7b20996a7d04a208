/**
 * The provider suite's snapshot check (provider-suite.ts), for providers whose
 * snapshotSupport(template) says they can: a snapshot of the ready machine carries the identity
 * it was asked to (`vmhub-<instance>-snap-<id>`), listSnapshots() shows it under the instance's
 * prefix only, a delete with a forged identity leaves it alone, and deleteSnapshot() removes it
 * (then answers "already_gone"). Restore and fork are exercised end to end by the server's tests.
 */
import { randomUUID } from 'node:crypto';
import type { TestContext } from 'node:test';
import type { MachineRef, Provider, TemplateConfig } from '@vmhub/core';
import { check } from './expect.ts';

/** `prefix`: the context's identityPrefix; a snapshot's identity is `<prefix>snap-<id>`. */
export async function snapshotCheck(t: TestContext, provider: Provider, machine: MachineRef, template: TemplateConfig, prefix: string, timeoutMs: number): Promise<void> {
  const support = provider.snapshotSupport?.(template);
  if (support === undefined || typeof support === 'string') { t.skip(`no snapshots for this template: ${support ?? 'the provider has no snapshotSupport()'}`); return; }
  for (const m of ['snapshot', 'deleteSnapshot'] as const) check(typeof provider[m] === 'function', `snapshotSupport() says yes but the provider lacks ${m}()`, `implement ${m}() (ProviderMethods in @vmhub/core), or answer snapshotSupport() with the reason`);
  const forge = () => `${prefix}snap-${randomUUID()}`;
  const identity = forge();
  const snap = await provider.snapshot!(machine, { identity, template, signal: AbortSignal.timeout(timeoutMs) });
  try {
    check(snap.identity === identity, `snapshot() returned identity "${snap.identity}" for "${identity}"`, 'stamp the identity you were asked to on the snapshot (label, description, record) and return it unchanged');
    check(typeof snap.external_id === 'string' && snap.external_id.length > 0, 'snapshot() returned no external_id', 'return the backend\'s own handle of the snapshot as external_id');
    check(typeof snap.memory === 'boolean' && snap.memory === (snap.memory && support.memory), `snapshot() says memory ${snap.memory}, snapshotSupport() says ${support.memory}`, 'claim memory only where snapshotSupport() does: running processes must really come back');
    check(Number.isFinite(snap.size_bytes) && snap.size_bytes >= 0, `snapshot() returned size_bytes ${snap.size_bytes}`, 'return the bytes the snapshot added on the host (0 or more)');
    if (provider.listSnapshots) {
      const listed = await provider.listSnapshots();
      check(listed.some((s) => s.identity === identity), `listSnapshots() does not include ${identity}`, 'list every snapshot carrying the instance\'s prefix (the reaper deletes orphans with it)');
      const foreign = listed.filter((s) => !s.identity.startsWith(prefix));
      check(foreign.length === 0, `listSnapshots() returned another instance's snapshots: ${foreign.map((s) => s.identity).join(', ')}`, 'filter listSnapshots() by context.identityPrefix');
    }
    const forged = await provider.deleteSnapshot!({ ...snap, identity: forge() });
    check(forged === 'identity_mismatch', `deleteSnapshot() with a forged identity answered '${forged}'`, 'read the snapshot\'s identity back before deleting it; answer "identity_mismatch" and leave it alone');
  } finally {
    const outcome = await provider.deleteSnapshot!(snap);
    check(outcome === 'destroyed', `deleteSnapshot() of the snapshot made answered '${outcome}'`, 'answer "destroyed" after deleting a snapshot whose identity matches');
  }
  const again = await provider.deleteSnapshot!(snap);
  check(again === 'already_gone', `deleteSnapshot() again answered '${again}'`, 'deleteSnapshot() must be idempotent: "already_gone" when nothing is left');
  if (provider.listSnapshots) check(!(await provider.listSnapshots()).some((s) => s.identity === identity), `${identity} is still listed after deleteSnapshot()`, 'delete the snapshot for real before answering "destroyed"');
}
