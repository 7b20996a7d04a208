/**
 * A round-robin TCP proxy on loopback, the load balancer in front of several vmhub servers (tests
 * and benchmarks of stateless HTTP across servers): each accepted connection is piped to the next
 * backend in turn. A backend that refuses the connection (a killed server) is skipped for that
 * connection and the next one is tried, so once one is gone everything goes to the others; when
 * none accepts, the client's connection is closed. Counts what each backend was given.
 *
 * A client that keeps its connections alive sends every request of a connection to one backend;
 * to put each request on the next server, open a connection per request (`Connection: close`).
 */
import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  /** Connections handed to each backend port (in the order given), refused ones not counted. */
  connections(): Record<number, number>;
  /** Stops listening and closes every piped connection. */
  close(): Promise<void>;
}

/** Listen on 127.0.0.1 (a free port) and spread connections over `backends` (ports on 127.0.0.1). */
export async function startRoundRobinProxy(backends: number[]): Promise<TcpProxy> {
  if (backends.length === 0) throw new Error('[vmhub] [test-kit] a proxy needs at least one backend port');
  const counts: Record<number, number> = Object.fromEntries(backends.map((p) => [p, 0]));
  const open = new Set<Socket>();
  let next = 0;
  const track = (s: Socket): void => { open.add(s); s.once('close', () => open.delete(s)); };

  /** Pipe `client` to the first backend, from the turn's one on, that accepts. */
  const dial = (client: Socket, tries: number, start: number): void => {
    if (tries === backends.length) { client.destroy(); return; }
    const port = backends[(start + tries) % backends.length]!;
    const upstream = connect({ host: '127.0.0.1', port });
    const refused = (): void => { upstream.destroy(); dial(client, tries + 1, start); };
    upstream.once('error', refused);
    upstream.once('connect', () => {
      upstream.off('error', refused);
      counts[port]!++;
      track(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      client.pipe(upstream).pipe(client);
      client.resume();
    });
  };

  const server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    dial(client, 0, next++ % backends.length);
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', resolve); });
  const port = (server.address() as { port: number }).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    connections: () => ({ ...counts }),
    close: () => new Promise<void>((resolve) => {
      for (const s of open) s.destroy();
      server.close(() => resolve());
    }),
  };
}
