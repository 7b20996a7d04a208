/**
 * The adb server's host protocol, just enough to open one service on one device: each request is
 * four hex digits of length plus the text; the server answers `OKAY`, or `FAIL` plus a
 * length-prefixed reason. `host:transport:<serial>` turns the connection into a pipe to that
 * device, and the next request (`shell,v2,raw:…`) opens the service whose bytes then flow raw.
 * `host:connect:<spec>` / `host:disconnect:<spec>` attach and detach a device; the spec is
 * `host:port` or, for a device behind a unix socket, `localfilesystem:<path>` (adb 34 has it).
 * adbkit has no shell protocol v2 (issue #470), so exec speaks this itself; files still go
 * through adbkit's sync client.
 */
import { connect, type Socket } from 'node:net';

/** The adb server: a unix socket (vmhub's private server, adb-server.ts) or a TCP address. */
export type AdbServerAddress = { path: string; host?: never; port?: never } | { host: string; port: number; path?: never };

/** Where the adb server dials the device's adbd: a unix socket (a GuestPorts forward) or TCP. */
export type DeviceAddress = AdbServerAddress;

/** The address as `adb connect` takes it, which is also the serial the device gets. */
export function deviceSpec(address: DeviceAddress): string {
  return address.path !== undefined ? `localfilesystem:${address.path}` : `${address.host}:${address.port}`;
}

/** For messages: `unix:<path>` or `host:port`. */
export function describeServer(server: AdbServerAddress): string {
  return server.path !== undefined ? `unix:${server.path}` : `${server.host}:${server.port}`;
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
    const socket = connect(server.path !== undefined ? { path: server.path } : { host: server.host, port: server.port });
    const onAbort = (): void => {
      socket.destroy();
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      signal?.removeEventListener('abort', onAbort);
      if (server.path === undefined) socket.setNoDelay(true);
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

/** One host request answered by OKAY and a length-prefixed text (`host:connect:…`, `host:disconnect:…`). */
export async function hostRequest(server: AdbServerAddress, request: string): Promise<string> {
  const socket = await dial(server);
  try {
    socket.write(encode(request));
    await expectOkay(socket);
    const len = Number.parseInt((await readExactly(socket, 4)).toString('ascii'), 16);
    return len > 0 ? (await readExactly(socket, len)).toString('utf8') : '';
  } finally {
    socket.destroy();
  }
}

/**
 * `adb connect <spec>`: attach the device at `address` to the server; resolves its serial. The
 * server answers OKAY even when it could not connect, so the text decides (as adbkit does).
 */
export async function attachDevice(server: AdbServerAddress, address: DeviceAddress): Promise<string> {
  const spec = deviceSpec(address);
  const reply = await hostRequest(server, `host:connect:${spec}`);
  if (!/connected to|already connected/.test(reply)) throw new AdbFail(reply || `could not connect to ${spec}`);
  return spec;
}

/** `adb disconnect <spec>`. */
export async function detachDevice(server: AdbServerAddress, address: DeviceAddress): Promise<void> {
  await hostRequest(server, `host:disconnect:${deviceSpec(address)}`);
}
