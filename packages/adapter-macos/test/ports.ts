/** Free loopback ports and waiting for a listener, for the test servers. */
import { connect, createServer } from 'node:net';

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

export async function waitPort(port: number, deadlineMs: number, dead: () => boolean = () => false): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    if (dead()) throw new Error(`the server for port ${port} exited`);
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect(port, '127.0.0.1');
      sock.once('connect', () => { sock.destroy(); resolve(true); });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within ${deadlineMs} ms`);
}
