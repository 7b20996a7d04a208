/**
 * Which adb server a channel goes through, and the adbkit client for it.
 *
 * Default: vmhub's **private** adb server, listening on the unix socket
 * `<tmpdir>/vmhub-adb-<uid>/adb.sock` (`adb -L localfilesystem:<path> start-server`) in a
 * directory of mode 0700 owned by the vmhub user. Whoever can talk to an adb server can open a
 * shell on every device attached to it, so a server on TCP (adb's own default, 127.0.0.1:5037)
 * hands the lease's device to every local user; the private one only to the vmhub user (and
 * root). One per user per host, shared by every vmhub process of that user, started on first
 * use and left running like adb's own. A directory found there that is not a real directory of
 * this user with no group/other permission is refused, never used.
 *
 * `adb: {host, port}` (either given) keeps a TCP server, started by adbkit with
 * `<bin> -P <port> start-server` when none answers — reachable by every local user.
 * `adb: {socket}` names another unix socket (its directory is the operator's to protect).
 */
import { execFile } from 'node:child_process';
import { lstat, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { VmhubError } from '@vmhub/core';
import type { Client } from '@devicefarmer/adbkit';
import { describeServer, hostRequest, type AdbServerAddress } from './adb-host.ts';

const SOURCE = 'channel-adb';
const START_MS = 20_000;

export interface AdbServerOptions {
  /** A TCP adb server at this host (any local user can use it); default: the private socket. */
  host?: string;
  /** A TCP adb server on this port (default 5037 when `host` is given). */
  port?: number;
  /** A unix socket the adb server listens on; default `<tmpdir>/vmhub-adb-<uid>/adb.sock`. */
  socket?: string;
  /** adb binary used to start a server when none answers; default `adb`. */
  bin?: string;
}

/** The default private server's socket for this user. */
export function privateAdbSocket(): string {
  return join(tmpdir(), `vmhub-adb-${process.getuid?.() ?? 'user'}`, 'adb.sock');
}

/** Where the server is: TCP only when asked for by host or port. */
export function adbServerAddress(adb: AdbServerOptions = {}): AdbServerAddress {
  if (adb.host !== undefined || adb.port !== undefined) return { host: adb.host ?? '127.0.0.1', port: adb.port ?? 5037 };
  return { path: adb.socket ?? privateAdbSocket() };
}

/** Make (or check) the 0700 directory of the private socket. */
async function privateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) {
    throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] ${dir} (the private adb server's directory) is not a directory of uid ${uid} with mode 0700 (found mode ${(st.mode & 0o7777).toString(8)}, owner ${st.uid}): not using it`, {
      source: SOURCE,
      hint: `Another user may have made it: remove ${dir} (or set TMPDIR for the vmhub server) and retry.`,
    });
  }
}

const starting = new Map<string, Promise<void>>();

/** Start the private server at `path` unless one answers there. Concurrent calls share one start. */
export function ensureAdbServer(path: string, bin = 'adb'): Promise<void> {
  let p = starting.get(path);
  if (!p) {
    p = (async () => {
      await privateDir(dirname(path));
      if (await hostRequest({ path }, 'host:version').then(() => true, () => false)) return;
      await new Promise<void>((resolve, reject) => {
        execFile(bin, ['-L', `localfilesystem:${path}`, 'start-server'], { timeout: START_MS }, (err, _stdout, stderr) => {
          if (err) reject(new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] could not start the private adb server (${bin} -L localfilesystem:${path} start-server): ${String(stderr).trim() || err.message}`, { source: SOURCE, retryable: true, cause: err, hint: 'Install adb 34 (bookworm-backports or platform-tools; it listens on unix sockets), or set adb.host/adb.port to use a TCP server.' }));
          else resolve();
        });
      });
    })().finally(() => starting.delete(path));
    starting.set(path, p);
  }
  return p;
}

interface AdbkitModule {
  createClient(o: { host?: string; port?: number; bin: string }): Client;
}

interface AdbkitConnection {
  startServer(): PromiseLike<unknown>;
  connect(): PromiseLike<unknown>;
  on(event: 'error', listener: (err: Error) => void): void;
}

async function loadAdbkit(): Promise<{ Adb: AdbkitModule; Connection: new (options: object) => AdbkitConnection }> {
  // adbkit is CommonJS whose module.exports.default is the export.
  const mod = (await import('@devicefarmer/adbkit')) as unknown as { default: { default: AdbkitModule } };
  const conn = (await import('@devicefarmer/adbkit/dist/src/adb/connection.js')) as unknown as { default: { default: new (options: object) => AdbkitConnection } };
  return { Adb: mod.default.default, Connection: conn.default.default };
}

/**
 * An adbkit client for `server`. For a unix socket, adbkit's connections dial the path, and a
 * refused one starts *this* server again — adbkit itself would start a TCP one on 5037.
 */
export async function adbClient(server: AdbServerAddress, bin = 'adb'): Promise<Client> {
  const { Adb, Connection } = await loadAdbkit();
  if (server.path === undefined) return Adb.createClient({ host: server.host, port: server.port, bin });
  const path = server.path;
  await ensureAdbServer(path, bin);
  const client = Adb.createClient({ bin });
  const options = { path, bin, timeout: 0 };
  Object.assign(client as unknown as { options: object }, { options });
  Object.assign(client as unknown as { connection(): PromiseLike<unknown> }, {
    connection: () => {
      const c = new Connection(options);
      c.startServer = () => ensureAdbServer(path, bin);
      c.on('error', (err) => client.emit('error', err));
      return c.connect();
    },
  });
  return client;
}

export { describeServer };
