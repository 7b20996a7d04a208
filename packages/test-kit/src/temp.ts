/**
 * Temporary directories for tests, removed by `cleanup()` — and, for those a failing test never
 * cleaned up, when the process exits.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  /** The directory's absolute path. */
  path: string;
  /** Remove it with everything in it (again is a no-op). */
  cleanup(): void;
  [Symbol.dispose](): void;
}

const live = new Set<string>();
let hooked = false;

function removeAll(): void {
  for (const path of live) rmSync(path, { recursive: true, force: true });
  live.clear();
}

/**
 * A fresh directory named `<prefix>XXXXXX` under `base` (default: the OS temp dir). `using dir =
 * tempDir(...)` removes it at the end of the block; otherwise call `cleanup()`.
 */
export function tempDir(prefix = 'vmhub-test-', base = tmpdir()): TempDir {
  const path = mkdtempSync(join(base, prefix));
  live.add(path);
  if (!hooked) {
    hooked = true;
    process.once('exit', removeAll);
  }
  const cleanup = () => {
    live.delete(path);
    rmSync(path, { recursive: true, force: true });
  };
  return { path, cleanup, [Symbol.dispose]: cleanup };
}
