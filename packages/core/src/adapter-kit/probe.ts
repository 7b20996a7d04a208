/**
 * The frame of an adapter's probe(): what it learned about the guest (one guest command, the
 * adapter's) judged per capability. When the guest cannot be probed at all, every capability the
 * probe covers is unavailable, saying why; the reasons a missing tool gives are worded the same in
 * every adapter.
 */
import type { AdapterContext } from '../adapter.ts';
import type { Capability } from '../capabilities.ts';

/** Capability → why it is unavailable on this machine (absent: available). */
export type Unavailable = Partial<Record<Capability, string>>;

/**
 * Load the facts, then let `judge` fill in the unavailable capabilities. A failed load makes each
 * of `covered` unavailable: `<unreachable>: <the error's message>`.
 */
export async function probeWith<F>(load: () => Promise<F>, covered: readonly Capability[], judge: (facts: F, out: Unavailable) => void | Promise<void>, unreachable = 'the guest could not be probed'): Promise<Unavailable> {
  const out: Unavailable = {};
  let facts: F;
  try {
    facts = await load();
  } catch (err) {
    const reason = `${unreachable}: ${err instanceof Error ? err.message : String(err)}`;
    for (const cap of covered) out[cap] = reason;
    return out;
  }
  await judge(facts, out);
  return out;
}

/** "<tools> not found in the guest: add it (them) to the golden image (<docs>)". */
export function lackingTools(tools: readonly string[], docs: string): string {
  return `${tools.join(', ')} not found in the guest: add ${tools.length > 1 ? 'them' : 'it'} to the golden image (${docs})`;
}

/**
 * clone_repo unpacks with the channel's archive API, else with `tar` in the guest: unavailable only
 * when the guest lacks tar (it is among `missing`) and the channel has no archive API.
 */
export async function cloneRepoUnavailable(ctx: AdapterContext, missing: readonly string[], docs: string): Promise<string | undefined> {
  if (!missing.includes('tar')) return undefined;
  const channel = await ctx.channel().catch(() => undefined);
  return channel?.putArchive ? undefined : `tar not found in the guest and the channel has no archive API: add tar to the golden image (${docs})`;
}
