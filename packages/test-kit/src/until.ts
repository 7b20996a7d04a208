/**
 * Polling for tests: wait until something holds, or fail naming what was awaited.
 */
import { readFile } from 'node:fs/promises';

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

/**
 * Wait until `file` (read as latin1, so any bytes do; a missing file reads as empty) contains
 * `text`, polling every `every` ms; returns the whole content. After `ms` it throws with the
 * file's last 300 characters: what a serial console or a log showed instead.
 */
export async function untilFileHas(file: string, text: string, ms = 30_000, every = 150): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const content = await readFile(file, 'latin1').catch(() => '');
    if (content.includes(text)) return content;
    if (Date.now() > end) throw new Error(`${file} never showed ${JSON.stringify(text)} in ${ms} ms; its tail: ${content.slice(-300)}`);
    await sleep(every);
  }
}
