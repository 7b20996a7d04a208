/**
 * A real PostgreSQL server for tests and benchmarks: Debian's binaries, a cluster made by initdb
 * in a temporary directory, listening on a loopback port (and on any extra address asked for,
 * e.g. a veth end a test's network namespace reaches). Password auth (scram-sha-256) over TCP,
 * so the URL's credentials are exercised as in production. Runs as the `postgres` system user
 * when started as root (PostgreSQL refuses to run as root).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '@vmhub/test-kit';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresServer {
  /** Superuser URL for database `db` (default `postgres`) on `host` (default 127.0.0.1). */
  url(db?: string, host?: string): string;
  readonly port: number;
  readonly dir: string;
  /** Create a fresh database and return its URL. */
  createDatabase(name: string): Promise<string>;
  /** pg_ctl stop -m fast: clients see their connections closed. */
  stop(): void;
  /** Start again on the same port (after stop() or kill()). */
  start(): void;
  /** SIGKILL the postmaster (a crash: the next start runs recovery). */
  kill(): void;
  readonly running: boolean;
  /** Stop it and remove the cluster directory. */
  destroy(): void;
}

export interface PostgresOptions {
  /** Extra addresses to listen on besides 127.0.0.1 (e.g. a veth end). */
  listen?: string[];
  /** Networks allowed to connect besides loopback, CIDR (`10.77.0.0/16`). */
  allow?: string[];
  port?: number;
}

const USER = 'vmhub';
const PASSWORD = 'vmhub-test-password';

/** Where Debian put the server binaries (the newest major installed). */
export function postgresBinDir(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) throw new Error('[vmhub] [postgres-testing] no PostgreSQL server binaries under /usr/lib/postgresql: apt-get install postgresql (scripts/setup.sh does)');
  return join(base, versions[0]!, 'bin');
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? Number(execFileSync('id', ['-u', 'postgres']).toString().trim()) : undefined;
  const group = asRoot ? Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) : undefined;
  if (owner !== undefined) chownSync(dir, owner, group!);
  const run = (cmd: string, args: string[]) => {
    const argv = owner !== undefined ? ['setpriv', `--reuid=${owner}`, `--regid=${group}`, '--clear-groups', join(bin, cmd), ...args] : [join(bin, cmd), ...args];
    const r = spawnSync(argv[0]!, argv.slice(1), { cwd: dir, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8', PGPASSWORD: PASSWORD } });
    if (r.status !== 0) throw new Error(`[vmhub] [postgres-testing] ${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
    return r.stdout;
  };
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  if (owner !== undefined) chownSync(pwfile, owner, group!);
  run('initdb', ['-D', data, '-U', USER, '--pwfile', pwfile, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  rmSync(pwfile);
  const listen = ['127.0.0.1', ...(options.listen ?? [])].join(',');
  const conf = [
    `port = ${port}`,
    `listen_addresses = '${listen}'`,
    `unix_socket_directories = '${dir}'`,
    'max_connections = 200',
    // No fsync (nothing here survives an OS crash, and none is simulated), but a COMMIT is
    // acknowledged only once its WAL is written out: the tests SIGKILL the server and check that
    // nothing acknowledged is lost, which synchronous_commit = off would break (it lost a lease
    // row acknowledged in the last ~600 ms before a kill, as a real server never does).
    'fsync = off',
    'synchronous_commit = on',
    'full_page_writes = off',
    "log_min_messages = 'warning'",
  ];
  writeFileSync(join(data, 'postgresql.auto.conf'), `${conf.join('\n')}\n`);
  const hba = ['host all all 127.0.0.1/32 scram-sha-256', ...(options.allow ?? []).map((n) => `host all all ${n} scram-sha-256`)];
  writeFileSync(join(data, 'pg_hba.conf'), `${hba.join('\n')}\n`);
  if (owner !== undefined) for (const f of ['postgresql.auto.conf', 'pg_hba.conf']) chownSync(join(data, f), owner, group!);
  let running = false;
  const server: PostgresServer = {
    port, dir,
    get running() { return running; },
    url: (db = 'postgres', host = '127.0.0.1') => `postgres://${USER}:${PASSWORD}@${host}:${port}/${db}`,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`[vmhub] [postgres-testing] database name ${name} must be lower-case letters, digits and _`);
      run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', USER, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-q', '-c', `CREATE DATABASE ${name}`]);
      return server.url(name);
    },
    start() {
      run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
      running = true;
    },
    stop() {
      if (!running) return;
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      running = false;
    },
    kill() {
      const pidFile = join(data, 'postmaster.pid');
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
        // The backends notice the postmaster is gone and exit; wait until none holds the port.
        for (let i = 0; i < 200 && alive(pid); i++) execFileSync('sleep', ['0.05']);
      }
      running = false;
    },
    destroy() {
      try { server.stop(); } catch { server.kill(); }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  server.start();
  return server;
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}
