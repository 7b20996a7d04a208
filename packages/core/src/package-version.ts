/**
 * A plugin's version is its package.json's, read once at load: never a string written beside it.
 * `readPackageVersion(import.meta.url)` walks up from the calling module to the nearest
 * package.json, which is the same file from `src/` in development and `dist/` when published.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function readPackageVersion(moduleUrl: string): string {
  let dir = dirname(moduleUrl.startsWith('file:') ? fileURLToPath(moduleUrl) : moduleUrl);
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const version = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
      if (typeof version !== 'string' || version === '') throw new Error(`[vmhub] ${file} has no "version"`);
      return version;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`[vmhub] no package.json above ${moduleUrl}`);
    dir = up;
  }
}
