/**
 * Loopback ports for test servers: a free one, and waiting for a listener on one.
 */
import { connect, createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (the kernel picked it for a listener that is
 * closed again before this resolves): give it to a server that must be told its port.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Whether something accepts a TCP connection on `host`:`port` now. */
export function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host, port });
    sock.once('connect', () => { sock.destroy(); resolve(true); });
    sock.once('error', () => resolve(false));
  });
}

/**
 * Wait until 127.0.0.1:`port` accepts connections; throws after `ms`, or at once when `dead()`
 * says the server that should listen there has exited.
 */
export async function waitPort(port: number, ms = 10_000, dead: () => boolean = () => false): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (dead()) throw new Error(`the server for port ${port} exited`);
    if (await accepts(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within ${ms} ms`);
}
