/**
 * One `list()` per provider per pass, taken after the store transitions. Teardown uses it to
 * find a machine the store has no handle for; the orphan sweep walks it. A provider that
 * cannot be listed is an error (when the config or a lease names it), never a reason to stop.
 */
import type { OwnedMachine } from '@vmhub/core';
import type { PassContext } from './context.ts';
import type { Tally } from './summary.ts';
import { messageOf, withTimeout } from './timeout.ts';

export type ProviderListing =
  | { ok: true; machines: OwnedMachine[]; byIdentity: Map<string, OwnedMachine[]> }
  | { ok: false; error: string };

export interface Listing {
  /** When the lists were requested: a store record newer than this supersedes what they show. */
  at: number;
  byProvider: Map<string, ProviderListing>;
}

export async function listMachines(ctx: PassContext, tally: Tally): Promise<Listing> {
  const at = Date.now();
  const referenced = await referencedProviders(ctx);
  const byProvider = new Map<string, ProviderListing>();
  for (const id of referenced) {
    if (!ctx.providers.has(id)) {
      ctx.log('warn', 'provider named by the store or config is not available: its machines cannot be listed', { provider: id, reason: ctx.unavailable.get(id) ?? 'no plugin with this id is installed' });
    }
  }
  await Promise.all([...ctx.providers].map(async ([id, provider]) => {
    const required = referenced.has(id);
    try {
      if (!required) {
        // Installed but unused here: sweep it only if its backend answers, so a Docker-less
        // Proxmox host does not report an error every pass.
        const status = await withTimeout(provider.status(), ctx.settings.callTimeoutMs, `provider ${id} status()`);
        if (!status.ok) {
          ctx.log('debug', 'provider not reachable and not referenced: not swept', { provider: id, reason: status.reason });
          return;
        }
      }
      const machines = await withTimeout(provider.list(), ctx.settings.callTimeoutMs, `provider ${id} list()`);
      const byIdentity = new Map<string, OwnedMachine[]>();
      for (const m of machines) {
        const same = byIdentity.get(m.identity);
        if (same) same.push(m);
        else byIdentity.set(m.identity, [m]);
      }
      byProvider.set(id, { ok: true, machines, byIdentity });
    } catch (err) {
      const message = messageOf(err);
      byProvider.set(id, { ok: false, error: message });
      tally.error({ provider: id, message: `list() failed: ${message}` });
      ctx.log('error', 'provider list failed: orphans on it are not swept this pass', { provider: id, error: message });
    }
  }));
  return { at, byProvider };
}

/** Providers the config names or that a non-final lease or a not-yet-destroyed machine uses. */
async function referencedProviders(ctx: PassContext): Promise<Set<string>> {
  const ids = new Set(ctx.configured);
  for (const id of await ctx.store.providersInUse()) ids.add(id);
  return ids;
}
