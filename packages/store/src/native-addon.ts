/**
 * better-sqlite3 is a native addon: it loads only in a Node.js with the ABI (NODE_MODULE_VERSION)
 * it was compiled for. Run by another Node (a checkout built with Node 24 started by a client's
 * Node 22, an `npm i -g` under one nvm version run under another), Node throws ERR_DLOPEN_FAILED
 * with a paragraph that mentions neither vmhub nor what to run. This turns that into one line
 * saying which Node it was built for, which Node this is, and the rebuild command for this install.
 */
import { createRequire } from 'node:module';
import { dirname, sep } from 'node:path';
import { StoreNativeModuleError } from './errors.ts';

/** NODE_MODULE_VERSION of each Node.js major (node/doc/abi_version_registry.json). */
const NODE_OF_ABI: Record<number, number> = { 108: 18, 111: 19, 115: 20, 120: 21, 127: 22, 131: 23, 137: 24, 141: 25 };

const nodeOf = (abi: number): string => (NODE_OF_ABI[abi] ? `Node.js ${NODE_OF_ABI[abi]} (NODE_MODULE_VERSION ${abi})` : `NODE_MODULE_VERSION ${abi}`);

/** The StoreNativeModuleError for an error of `new BetterSqlite3()`, or undefined when it is another failure. */
export function nativeAddonError(err: unknown, execPath = process.execPath, version = process.version): StoreNativeModuleError | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  const message = String(e?.message ?? '');
  const unbuilt = /Could not locate the bindings file/.test(message);
  if (e?.code !== 'ERR_DLOPEN_FAILED' && !/NODE_MODULE_VERSION/.test(message) && !unbuilt) return undefined;
  const addon = /^The module '([^']+)'/.exec(message)?.[1] ?? /^([^:\n]+\.node):/.exec(message)?.[1];
  const fix = `rebuild it with this Node: ${rebuildCommand(addon, execPath)}`;
  const abi = /using\s+NODE_MODULE_VERSION (\d+)\.\s+This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  let detail: string;
  if (abi) {
    detail = `better-sqlite3 was built for ${nodeOf(Number(abi[1]))}, but this is Node.js ${version} (NODE_MODULE_VERSION ${abi[2]}, ${execPath})`;
    if (NODE_OF_ABI[Number(abi[1])]) return new StoreNativeModuleError(detail, `${fix} (or run vmhub with Node.js ${NODE_OF_ABI[Number(abi[1])]})`, { cause: err });
  } else if (unbuilt) {
    detail = `better-sqlite3 has no native addon built (Node.js ${version}, ${execPath})`;
  } else {
    detail = `better-sqlite3's native addon does not load in Node.js ${version} (${execPath}): ${message.split('\n')[0]}`;
  }
  return new StoreNativeModuleError(detail, fix, { cause: err });
}

/**
 * Where to rebuild: the project whose node_modules holds better-sqlite3 (pnpm keeps it under
 * node_modules/.pnpm, and rebuilds across the workspace with -r), with this Node first on PATH.
 */
function rebuildCommand(addon: string | undefined, execPath: string): string {
  let pkg = addon;
  if (!pkg) {
    try { pkg = createRequire(import.meta.url).resolve('better-sqlite3/package.json'); } catch { pkg = undefined; }
  }
  const path = `PATH=${dirname(execPath)}:$PATH`;
  const pnpm = pkg?.indexOf(`${sep}node_modules${sep}.pnpm${sep}`) ?? -1;
  if (pkg && pnpm >= 0) return `cd ${pkg.slice(0, pnpm) || sep} && ${path} pnpm rebuild -r better-sqlite3`;
  const at = pkg?.lastIndexOf(`${sep}node_modules${sep}better-sqlite3`) ?? -1;
  if (pkg && at >= 0) return `cd ${pkg.slice(0, at) || sep} && ${path} npm rebuild better-sqlite3`;
  return `${path} npm rebuild better-sqlite3 (in the folder where vmhub is installed)`;
}
