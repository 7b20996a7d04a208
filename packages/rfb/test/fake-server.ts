/** A scripted RFB server on loopback for handshake and failure tests (real servers are in the other tests). */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface Fake {
  port: number;
  server: Server;
  /** Every byte each connection received from the client. */
  received: Buffer[];
  close(): Promise<void>;
  dial(): Promise<Socket>;
}

export async function fakeServer(script: (sock: Socket, read: (n: number) => Promise<Buffer>) => Promise<void>): Promise<Fake> {
  const received: Buffer[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((sock) => {
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
    sock.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    let waiter: (() => void) | undefined;
    sock.on('data', (c: Buffer) => { buf = Buffer.concat([buf, c]); received.push(c); waiter?.(); });
    sock.on('close', () => waiter?.());
    const read = async (n: number) => {
      while (buf.length < n) {
        if (sock.destroyed) throw new Error('closed');
        await new Promise<void>((ok) => { waiter = ok; });
      }
      const out = buf.subarray(0, n);
      buf = buf.subarray(n);
      return out;
    };
    script(sock, read).catch(() => sock.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as { port: number }).port;
  return {
    port, server, received,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
    async dial() {
      const s = connect(port, '127.0.0.1');
      await new Promise((ok, fail) => { s.once('connect', ok); s.once('error', fail); });
      return s;
    },
  };
}

export function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}

/** ServerInit for a w×h screen in the 32-bit format the client asks for anyway. */
export function serverInit(w: number, h: number, name = 'fake'): Buffer {
  const b = Buffer.alloc(24);
  b.writeUInt16BE(w, 0); b.writeUInt16BE(h, 2);
  b[4] = 32; b[5] = 24; b[7] = 1;
  b.writeUInt16BE(255, 8); b.writeUInt16BE(255, 10); b.writeUInt16BE(255, 12);
  b[14] = 16; b[15] = 8; b[16] = 0;
  b.writeUInt32BE(Buffer.byteLength(name), 20);
  return Buffer.concat([b, Buffer.from(name)]);
}
