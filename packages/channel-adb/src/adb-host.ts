/**
 * The adb server's host protocol, just enough to open one service on one device: each request is
 * four hex digits of length plus the text; the server answers `OKAY`, or `FAIL` plus a
 * length-prefixed reason. `host:transport:<serial>` turns the connection into a pipe to that
 * device, and the next request (`shell,v2,raw:…`) opens the service whose bytes then flow raw.
 * adbkit has no shell protocol v2 (issue #470), so exec speaks this itself; files still go
 * through adbkit's sync client.
 */
import { connect, type Socket } from 'node:net';

export interface AdbServerAddress {
  host: string;
  port: number;
}

/** The adb server refused a request; `reason` is its own words ("device offline", …). */
export class AdbFail extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
    this.name = 'AdbFail';
  }
}

function encode(request: string): Buffer {
  const body = Buffer.from(request, 'utf8');
  return Buffer.concat([Buffer.from(body.length.toString(16).padStart(4, '0'), 'ascii'), body]);
}

/** Read exactly n bytes from a paused socket, leaving the rest buffered in it. */
function readExactly(socket: Socket, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      const chunk = socket.read(n) as Buffer | null;
      if (chunk !== null) {
        cleanup();
        resolve(chunk);
      }
    };
    const onEnd = (): void => {
      cleanup();
      reject(new AdbFail('the adb server closed the connection'));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const cleanup = (): void => {
      socket.off('readable', attempt);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      socket.off('error', onError);
    };
    socket.on('readable', attempt);
    socket.once('end', onEnd);
    socket.once('close', onEnd);
    socket.once('error', onError);
    attempt();
  });
}

async function expectOkay(socket: Socket): Promise<void> {
  const status = (await readExactly(socket, 4)).toString('ascii');
  if (status === 'OKAY') return;
  if (status !== 'FAIL') throw new AdbFail(`unexpected adb server reply ${JSON.stringify(status)}`);
  const len = Number.parseInt((await readExactly(socket, 4)).toString('ascii'), 16);
  throw new AdbFail(len > 0 ? (await readExactly(socket, len)).toString('utf8') : 'failed');
}

function dial(server: AdbServerAddress, signal?: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    const onAbort = (): void => {
      socket.destroy();
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      signal?.removeEventListener('abort', onAbort);
      socket.setNoDelay(true);
      resolve(socket);
    });
    socket.once('error', (err) => {
      signal?.removeEventListener('abort', onAbort);
      reject(err);
    });
  });
}

/**
 * A socket carrying `service` on device `serial`, handshake done, ready for the service's own
 * bytes (readable in paused mode; the caller attaches its 'data' handler).
 */
export async function openService(server: AdbServerAddress, serial: string, service: string, signal?: AbortSignal): Promise<Socket> {
  const socket = await dial(server, signal);
  try {
    socket.write(encode(`host:transport:${serial}`));
    await expectOkay(socket);
    socket.write(encode(service));
    await expectOkay(socket);
    return socket;
  } catch (err) {
    socket.destroy();
    throw err;
  }
}
