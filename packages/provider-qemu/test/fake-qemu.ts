/**
 * Fake QMP and guest-agent endpoints on unix sockets, for unit tests of the protocol clients.
 * (The real ones are exercised against qemu-system in test/.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Handler = (msg: { execute: string; arguments?: Record<string, unknown>; id?: unknown }, sock: Socket) => unknown;

export async function fakeSocketServer(protocol: 'qmp' | 'qga', handle: Handler): Promise<{ path: string; server: Server; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-fake-qmp-'));
  const path = join(dir, `${protocol}.sock`);
  const sockets = new Set<Socket>();
  const server = createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    if (protocol === 'qmp') sock.write(JSON.stringify({ QMP: { version: { qemu: { major: 7, minor: 2, micro: 0 } }, capabilities: ['oob'] } }) + '\n');
    let buf = '';
    sock.setEncoding('latin1');
    sock.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).replace(/^\xff/, '');
        buf = buf.slice(nl + 1);
        const msg = JSON.parse(line);
        const out = handle(msg, sock);
        if (out !== undefined) sock.write(JSON.stringify(out) + '\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    path,
    server,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
