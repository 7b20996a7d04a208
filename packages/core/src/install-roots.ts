/**
 * The node_modules folders that belong to the install an app (the server, the reaper) was
 * started from: the only places plugin discovery looks for packages by name. Nearest first:
 *
 * 1. the app's own `node_modules` (its nested dependencies);
 * 2. every `node_modules` folder the app's real path lies in — the folder that holds the app
 *    package itself and its siblings. npm: `<prefix>/node_modules` (`npm i -g`: the global
 *    `lib/node_modules`; `npx`: `~/.npm/_npx/<hash>/node_modules`; a project:
 *    `<project>/node_modules`). pnpm: `<project>/node_modules/.pnpm/<pkg>@<v>/node_modules` and
 *    `<project>/node_modules`. Nothing above the outermost one;
 * 3. only for an app that lies in no `node_modules` (a workspace checkout): the `node_modules` of
 *    the nearest folder above it holding `pnpm-workspace.yaml` or a package.json with
 *    `workspaces` — and only when that folder passes the trust check (file-trust.ts), so a
 *    world-writable /tmp cannot make itself a workspace root.
 *
 * Node's own resolution would go on to every parent folder's `node_modules` up to `/`, where
 * another user may have put a package (/tmp/node_modules): that is never looked at.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { untrustedPath } from './file-trust.ts';

export function installRoots(appDir: string): string[] {
  const real = realpathOr(appDir);
  const roots = [join(real, 'node_modules')];
  for (let dir = dirname(real); ; dir = dirname(dir)) {
    if (basename(dir) === 'node_modules') roots.push(dir);
    if (dirname(dir) === dir) break;
  }
  if (roots.length === 1) {
    const workspace = workspaceRoot(real);
    if (workspace) roots.push(join(workspace, 'node_modules'));
  }
  return [...new Set(roots)].filter((r) => existsSync(r));
}

/** The nearest folder at or above `start` that is a workspace root and is trusted. */
function workspaceRoot(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml')) || hasWorkspaces(join(dir, 'package.json'))) return untrustedPath(dir) ? undefined : dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function hasWorkspaces(manifest: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
    return typeof pkg === 'object' && pkg !== null && pkg.workspaces !== undefined;
  } catch {
    return false;
  }
}

function realpathOr(path: string): string {
  try { return realpathSync(path); } catch { return path; }
}
