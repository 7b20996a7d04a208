/**
 * Polling for tests: wait until something holds, or fail naming what was awaited.
 */

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Poll `check` every `every` ms until it gives a truthy value, which is returned; throws
 * `timed out after <ms> ms waiting for <what>` when a check made after `ms` have passed still
 * fails (so `check` always runs at least once).
 *
 * The argument order is `(check, what, ms, every)` everywhere in vmhub's tests.
 */
export async function until<T>(
  check: () => T | false | null | undefined | Promise<T | false | null | undefined>,
  what: string,
  ms = 30_000,
  every = 100,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(every);
  }
}
