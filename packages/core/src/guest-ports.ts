/**
 * GuestPorts: one lease's streams into guest TCP ports, made from a provider's `connect` — the
 * `connect(port)` and `forward(port)` of a LeaseContext. Whoever builds a LeaseContext (the
 * server's lease session, the conformance kit, a plugin's own tests) uses this, so every one
 * tracks and closes what it opened the same way.
 *
 * `forward(port)` listens on 127.0.0.1 with an ephemeral port; each accepted connection is piped
 * to a fresh `connect(port)`. Closing destroys the listeners and every stream still open.
 */
import { createServer, Socket, type Server } from 'node:net';
import type { Duplex } from 'node:stream';
import type { GuestEndpoint } from './adapter.ts';
import { VmhubError } from './errors.ts';

export type OpenGuestStream = (port: number, signal?: AbortSignal) => Promise<Duplex>;

export class GuestPorts {
  readonly #open: OpenGuestStream;
  /** Guest streams and the host-side sockets accepted by forwards: destroyed on close. */
  readonly #streams = new Set<Duplex>();
  readonly #accepted = new Set<Socket>();
  readonly #listeners = new Map<number, Promise<{ server: Server; endpoint: GuestEndpoint }>>();
  readonly #closing = new AbortController();

  constructor(open: OpenGuestStream) {
    this.#open = open;
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
      client.setNoDelay(true);
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
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (!address || typeof address === 'string') throw new VmhubError('INTERNAL', `[vmhub] forward to guest port ${port}: the loopback listener has no address`);
    return { server, endpoint: { host: '127.0.0.1', port: address.port } };
  }

  #alive(): void {
    if (this.#closing.signal.aborted) throw new VmhubError('LEASE_EXPIRED', '[vmhub] this lease session has ended: its guest ports are closed', { hint: 'Create a new lease (vm_lease_create).' });
  }

  /** Destroy every stream and listener. Idempotent; never throws. */
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
      if (l) await new Promise<void>((resolve) => { l.server.close(() => resolve()); });
    }));
    for (const s of this.#streams) s.destroy();
    this.#streams.clear();
  }
}
