/**
 * The reaper's test world (helpers.ts: a temp dir, the file-backed `fakefs` provider, the built
 * bin) with its store on a real PostgreSQL (@vmhub/postgres-testing) instead of SQLite. The bin
 * gets the database through VMHUB_DB in its environment (never on argv: the URL holds a
 * password), which wins over the config file's SQLite `db`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '@vmhub/store';
import { makeWorld, type World, type WorldOptions } from './helpers.ts';

/** A world whose store (the test's and the bin's) is the PostgreSQL database at `url`. */
export async function postgresWorld(url: string, options: WorldOptions = {}): Promise<World> {
  const w = makeWorld(options);
  await w.store.close();
  w.store = new Store({ path: url });
  await w.store.ready();
  w.env.VMHUB_DB = url;
  return w;
}

/** One line of the fake's calls.log: `start <ext> <pid>` (a destroy began) or `destroy <ext> <outcome> <pid>`. */
export interface Call { kind: 'start' | 'destroy'; ext: string; outcome?: string; pid: number }

export function calls(w: World): Call[] {
  const file = join(w.fakeDir, 'calls.log');
  if (!existsSync(file)) return [];
  const out: Call[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const f = line.split(' ');
    if (f[0] === 'start' && f.length === 3) out.push({ kind: 'start', ext: f[1]!, pid: Number(f[2]) });
    else if (f[0] === 'destroy' && f.length === 4) out.push({ kind: 'destroy', ext: f[1]!, outcome: f[2]!, pid: Number(f[3]) });
  }
  return out;
}

/** JSON log records a `--json` reaper wrote on stderr. */
export function logRecords(stderr: string): Record<string, unknown>[] {
  return stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => { try { return JSON.parse(l) as Record<string, unknown>; } catch { return {}; } });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
