/**
 * One golden build at a time per host: test files run in parallel processes and each may find
 * the tag missing. The lock is a file holding the builder's pid; a dead holder's lock is taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError } from '@vmhub/core';

function holderAlive(path: string): boolean {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return false;
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** The error a cancelled golden build ends with (the CLI was interrupted, the caller gave up). */
export function buildCancelled(what: string, signal: AbortSignal): VmhubError {
  const why = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
  return new VmhubError('TIMEOUT', `[vmhub] [provider-docker] golden build: ${what} cancelled (${why}); run the build again to finish it`, { source: 'provider-docker', cause: signal.reason });
}

/** Wait (bounded, cancellable) for the lock; returns its release function. */
export async function acquireGoldenLock(name: string, log: (line: string) => void, maxWaitMs = 30 * 60_000, signal?: AbortSignal): Promise<() => void> {
  const path = `${tmpdir()}/vmhub-golden-${name}.lock`;
  const deadline = Date.now() + maxWaitMs;
  let said = false;
  for (;;) {
    if (signal?.aborted) throw buildCancelled(`waiting for the lock of ${name}`, signal);
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
    }
    if (!holderAlive(path)) {
      rmSync(path, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new VmhubError('LOCK_CONTENTION', `[vmhub] [provider-docker] another golden build of ${name} holds ${path} for too long: wait for it or remove the file if no build runs`, { source: 'provider-docker' });
    if (!said) log(`waiting for another build of ${name} (${path})`);
    said = true;
    await sleep(1000, undefined, { signal }).catch(() => undefined);
  }
}
