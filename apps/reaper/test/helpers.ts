/**
 * Test world: a temp dir holding a store, a config file and the file-backed fake provider's
 * backend; helpers to seed leases/machines and to run the BUILT bin (dist/bin.js).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import { Store, type LeaseRow, type LeaseStatus } from '@vmhub/store';

const here = dirname(fileURLToPath(import.meta.url));
export const BIN = join(here, '..', 'dist', 'bin.js');
export const FAKE = join(here, 'fixtures', 'fake-provider.mjs');

if (!existsSync(BIN)) throw new Error(`[vmhub] [reaper] tests run the built bin: build first (cd apps/reaper && npx tsc -p tsconfig.build.json); ${BIN} is missing`);

export interface World {
  dir: string;
  db: string;
  fakeDir: string;
  configFile: string;
  instance: string;
  prefix: string;
  store: Store;
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

export interface WorldOptions {
  orphanGraceSeconds?: number;
  stuckGraceSeconds?: number;
  destroyDelayMs?: number;
  intervalSeconds?: number;
}

export function makeWorld(options: WorldOptions = {}): World {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-reaper-test-'));
  const instance = `t${randomUUID().slice(0, 8).replace(/-/g, '')}`;
  const db = join(dir, 'vmhub.db');
  const fakeDir = join(dir, 'fake');
  mkdirSync(join(fakeDir, 'machines'), { recursive: true });
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({
    instance, db, plugins: [FAKE],
    providers: { fakefs: { dir: fakeDir, ...(options.destroyDelayMs ? { destroy_delay_ms: options.destroyDelayMs } : {}) } },
    reaper: { interval_seconds: options.intervalSeconds ?? 30, orphan_grace_seconds: options.orphanGraceSeconds ?? 0, stuck_grace_seconds: options.stuckGraceSeconds ?? 0 },
  }, null, 2));
  const store = new Store({ path: db });
  // The bin also loads its real provider dependencies and sweeps any whose backend answers.
  // qemu's state is under XDG_STATE_HOME already; DOCKER_HOST points at a socket that does not
  // exist, so the host's Docker engine (busy with other suites) is never on these runs' path.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, 'state'), XDG_CONFIG_HOME: join(dir, 'cfg'), VMHUB_CONFIG: configFile,
    DOCKER_HOST: `unix://${join(dir, 'no-docker.sock')}`,
  };
  return {
    dir, db, fakeDir, configFile, instance, prefix: `vmhub-${instance}-`, store, env,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SeedOptions {
  status?: LeaseStatus;
  /** ms from now; negative = in the past */
  expiresIn?: number;
  maxExpiresIn?: number;
  deadlineIn?: number | null;
  /** write the machine's file in the fake backend */
  machine?: boolean;
  /** write the machines row in the store */
  row?: boolean;
  machineCreatedAgo?: number;
  claim?: { by: string; untilIn: number };
}

/** makeWorld(options) for the tests of the enclosing describe (or file), cleaned up after them. */
export function useWorld(options: WorldOptions = {}): World {
  const w = makeWorld(options);
  after(() => w.cleanup());
  return w;
}

/** `n` leases seeded one after another with the same options. */
export async function seedLeases(w: World, n: number, o: SeedOptions = {}): Promise<LeaseRow[]> {
  const rows: LeaseRow[] = [];
  for (let i = 0; i < n; i++) rows.push(await seedLease(w, o));
  return rows;
}

export async function seedLease(w: World, o: SeedOptions = {}): Promise<LeaseRow> {
  const id = randomUUID();
  const now = Date.now();
  const identity = `${w.prefix}${id}`;
  await w.store.createLease({
    id, principal: 'tester', request_id: `req-${id}`, template: 'fake-t', provider: 'fakefs', adapter: 'fake', owner: 'tester',
    status: o.status ?? 'ready', identity, created_at: now - 1000,
    expires_at: now + (o.expiresIn ?? 3_600_000), max_expires_at: now + (o.maxExpiresIn ?? 86_400_000),
    deadline_at: o.deadlineIn === null ? null : now + (o.deadlineIn ?? 300_000),
  });
  const external_id = `m-${id}`;
  if (o.machine !== false) writeMachine(w, { identity, external_id, created_at: now - (o.machineCreatedAgo ?? 1000) });
  if (o.row !== false) await w.store.putMachine({ lease_id: id, identity, provider: 'fakefs', external_id, node: null, state: 'running', details: '{}' });
  if (o.claim) await w.store.updateLease(id, { claimed_by: o.claim.by, claim_expires_at: now + o.claim.untilIn });
  return (await w.store.getLease(id))!;
}

export function writeMachine(w: World, m: { identity: string; external_id: string; created_at?: number }): void {
  writeFileSync(join(w.fakeDir, 'machines', `${m.external_id}.json`), JSON.stringify(m));
}

export function machineExists(w: World, externalId: string): boolean {
  return existsSync(join(w.fakeDir, 'machines', `${externalId}.json`));
}

export function machineFiles(w: World): string[] {
  return readdirSync(join(w.fakeDir, 'machines')).filter((f) => f.endsWith('.json'));
}

/** destroy() calls per external id, from the fake's calls.log. */
export function destroyCalls(w: World): Map<string, string[]> {
  const file = join(w.fakeDir, 'calls.log');
  const out = new Map<string, string[]>();
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [kind, ext, outcome] = line.split(' ');
    if (kind !== 'destroy') continue;
    out.set(ext, [...(out.get(ext) ?? []), outcome]);
  }
  return out;
}

export interface RunResult { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

export function runOnce(w: World, extra: string[] = [], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, '--once', ...extra], { env: { ...w.env, ...env }, timeout: timeoutMs }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: number | string; signal?: NodeJS.Signals }) | null;
      const result = { code: e ? (typeof e.code === 'number' ? e.code : null) : 0, signal: e?.signal ?? null, stdout, stderr };
      // A run without a summary line is a failure the assertions will report; say why here.
      if (!stdout.includes('reaper pass:')) process.stderr.write(`[runOnce] no summary line (exit ${result.code}, signal ${result.signal}); stderr:\n${stderr.slice(-4000)}\n`);
      resolve(result);
    });
  });
}

export function spawnReaper(w: World, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess & { out: () => string; err: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...w.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  return Object.assign(child, { out: () => out, err: () => err });
}

export function exited(child: ChildProcess, timeoutMs = 30_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`reaper did not exit within ${timeoutMs} ms`)); }, timeoutMs);
    child.once('exit', (code) => { clearTimeout(t); resolve(code); });
  });
}

export function summaryOf(stdout: string): Record<string, number> {
  const line = stdout.trim().split('\n').filter((l) => l.startsWith('reaper pass:')).at(-1);
  if (!line) throw new Error(`no summary line in:\n${stdout}`);
  const out: Record<string, number> = {};
  for (const m of line.matchAll(/(\w+)=(\d+)/g)) out[m[1]] = Number(m[2]);
  return out;
}

/**
 * A world whose provider is @vmhub/conformance/fake, loaded by the built bin by package name
 * (`plugins: ["@vmhub/conformance/fake"]`, provider id `fake`), the way an operator would: its
 * ledger records every create/destroy/snapshot op from every process. Removed after the file.
 */
export function useFakePackageWorld(tag: string): { instance: string; prefix: string; fakeDir: string; world: World; store: Store } {
  const dir = mkdtempSync(join(tmpdir(), `vmhub-reaper-${tag}-`));
  const instance = `${tag.slice(0, 1)}${randomUUID().slice(0, 8)}`;
  const fakeDir = join(dir, 'fake');
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ instance, db: join(dir, 'vmhub.db'), plugins: ['@vmhub/conformance/fake'], providers: { fake: { dir: fakeDir } }, reaper: { orphan_grace_seconds: 0 } }));
  // As in makeWorld: the host's Docker engine stays off these runs.
  const world = { env: { PATH: process.env.PATH, HOME: dir, VMHUB_CONFIG: configFile, DOCKER_HOST: `unix://${join(dir, 'no-docker.sock')}` } } as unknown as World;
  const store = new Store({ path: join(dir, 'vmhub.db') });
  after(async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); });
  return { instance, prefix: `vmhub-${instance}-`, fakeDir, world, store };
}
