import { VmhubError } from '@vmhub/core';

/**
 * Bound a provider call. The call itself is not cancelled (the contract's destroy takes no
 * signal), so the teardown keeps its claim until it lapses rather than letting another reaper
 * start a second destroy while this one may still be running.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new VmhubError('TIMEOUT', `[vmhub] [reaper] ${what} did not answer within ${ms} ms: check the provider's backend is reachable`, { source: 'reaper' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Run `fn` over `items`, at most `limit` at once. */
export async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
