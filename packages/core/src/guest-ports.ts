/**
 * GuestPorts: one lease's streams into guest TCP ports, made from a provider's `connect` — the
 * `connect(port)` and `forward(port)` of a LeaseContext. Whoever builds a LeaseContext (the
 * server's lease session, the conformance kit, a plugin's own tests) uses this, so every one
 * tracks and closes what it opened the same way.
 *
 * `forward(port)` listens on a unix socket `<dir>/<port>.sock`, `<dir>` made for this instance
 * with mkdtemp (mode 0700, owned by the vmhub user): only that user (and root) can connect, so a
 * forward is no way into the machine for other local users (docs/security.md, "Guest port
 * forwards"). With `{tcp: true}` (a template's `forward_tcp`) it listens on 127.0.0.1 with an
 * ephemeral port instead, which every local user can reach. Each accepted connection is piped to
 * a fresh `connect(port)`. Closing destroys the listeners and every stream still open, and
 * removes the directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, Socket, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { GuestEndpoint } from './adapter.ts';
import { VmhubError } from './errors.ts';

export type OpenGuestStream = (port: number, signal?: AbortSignal) => Promise<Duplex>;

export interface GuestPortsOptions {
  /**
   * Forwards listen on TCP 127.0.0.1 (any local user can connect) instead of a unix socket in a
   * 0700 directory. For clients that can only dial TCP; a template opts in with `forward_tcp`.
   */
  tcp?: boolean;
  /** Where the 0700 socket directory is made; default os.tmpdir(). */
  dir?: string;
}

/** sun_path holds 108 bytes on Linux, the terminating NUL included. */
const MAX_SOCKET_PATH = 107;

export class GuestPorts {
  readonly #open: OpenGuestStream;
  readonly #options: GuestPortsOptions;
  /** Guest streams and the host-side sockets accepted by forwards: destroyed on close. */
  readonly #streams = new Set<Duplex>();
  readonly #accepted = new Set<Socket>();
  readonly #listeners = new Map<number, Promise<{ server: Server; endpoint: GuestEndpoint }>>();
  readonly #closing = new AbortController();
  /** The 0700 directory of this instance's unix-socket forwards, made on the first forward. */
  #dir: Promise<string> | undefined;

  constructor(open: OpenGuestStream, options: GuestPortsOptions = {}) {
    this.#open = open;
    this.#options = options;
  }

  /** Streams and listeners open now (a leak test counts these). */
  get open(): number {
    return this.#streams.size + this.#listeners.size;
  }

  async connect(port: number): Promise<Duplex> {
    this.#alive();
    const stream = await this.#open(port, this.#closing.signal);
    if (stream instanceof Socket) stream.setNoDelay(true);
    if (this.#closing.signal.aborted) {
      stream.destroy();
      this.#alive();
    }
    this.#streams.add(stream);
    stream.once('close', () => this.#streams.delete(stream));
    return stream;
  }

  /** `{path}` (default) or `{host, port}` (tcp); either can be passed to net.connect as is. */
  forward(port: number): Promise<GuestEndpoint> {
    try { this.#alive(); } catch (err) { return Promise.reject(err); }
    let listening = this.#listeners.get(port);
    if (!listening) {
      listening = this.#listen(port);
      listening.catch(() => this.#listeners.delete(port));
      this.#listeners.set(port, listening);
    }
    return listening.then((l) => l.endpoint);
  }

  async #listen(port: number): Promise<{ server: Server; endpoint: GuestEndpoint }> {
    // Half-open: a client that ends its side (HTTP/1.0, a request then FIN) still reads the reply.
    const server = createServer({ allowHalfOpen: true }, (client: Socket) => {
      client.on('error', () => {});
      // Request/response protocols (adb, HTTP) would otherwise pay Nagle + delayed ACK (~40 ms) per exchange.
      if (this.#options.tcp) client.setNoDelay(true);
      this.#accepted.add(client);
      client.once('close', () => this.#accepted.delete(client));
      client.pause();
      this.connect(port).then(
        (guest) => {
          guest.on('error', () => client.destroy());
          client.on('close', () => guest.destroy());
          guest.on('close', () => client.destroy());
          client.pipe(guest);
          guest.pipe(client);
          client.resume();
        },
        () => client.destroy(),
      );
    });
    if (!this.#options.tcp) {
      const path = join(await this.#socketDir(), `${port}.sock`);
      await listenOn(server, () => server.listen(path));
      if (this.#closing.signal.aborted) await closeServer(server);
      this.#alive();
      return { server, endpoint: { path } };
    }
    await listenOn(server, () => server.listen(0, '127.0.0.1'));
    const address = server.address();
    if (!address || typeof address === 'string') throw new VmhubError('INTERNAL', `[vmhub] forward to guest port ${port}: the loopback listener has no address`);
    return { server, endpoint: { host: '127.0.0.1', port: address.port } };
  }

  #socketDir(): Promise<string> {
    this.#dir ??= (async () => {
      const parent = this.#options.dir ?? tmpdir();
      // mkdtemp makes the directory 0700 whatever the umask: the one gate in front of the sockets.
      const dir = await mkdtemp(join(parent, 'vmhub-ports-'));
      if (Buffer.byteLength(join(dir, '65535.sock')) > MAX_SOCKET_PATH) {
        await rm(dir, { recursive: true, force: true });
        throw new VmhubError('INTERNAL', `[vmhub] guest port forwards: socket paths under ${parent} would be longer than ${MAX_SOCKET_PATH} bytes`, { hint: 'Set TMPDIR to a shorter directory for the vmhub server.' });
      }
      return dir;
    })();
    this.#dir.catch(() => { this.#dir = undefined; });
    return this.#dir;
  }

  #alive(): void {
    if (this.#closing.signal.aborted) throw new VmhubError('LEASE_EXPIRED', '[vmhub] this lease session has ended: its guest ports are closed', { hint: 'Create a new lease (vm_lease_create).' });
  }

  /** Destroy every stream and listener and remove the socket directory. Idempotent; never throws. */
  async close(): Promise<void> {
    this.#closing.abort();
    const listeners = [...this.#listeners.values()];
    this.#listeners.clear();
    // server.close() waits for accepted connections (an HTTP client's idle keep-alive socket
    // would hold the end of the lease): end them first.
    for (const c of this.#accepted) c.destroy();
    this.#accepted.clear();
    await Promise.all(listeners.map(async (p) => {
      const l = await p.catch(() => undefined);
      if (l) await closeServer(l.server);
    }));
    for (const s of this.#streams) s.destroy();
    this.#streams.clear();
    const dir = await this.#dir?.catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function listenOn(server: Server, listen: () => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', () => { server.off('error', reject); resolve(); });
    listen();
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => { server.close(() => resolve()); });
}
