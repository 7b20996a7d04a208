/**
 * connectRfb: run the handshake on a byte stream and return the client. The client owns the
 * stream from here: a failed handshake, an abort or the bound destroys it.
 */
import type { Duplex } from 'node:stream';
import { ByteReader } from './byte-reader.ts';
import { RfbClient, type RfbEncodingName } from './client.ts';
import { RfbError } from './errors.ts';
import { handshake } from './handshake.ts';

export interface ConnectRfbOptions {
  /** VNC auth (its first 8 bytes) or the ARD password. */
  password?: string;
  /** The account name for Apple Remote Desktop auth (type 30). */
  username?: string;
  /** ClientInit's shared flag: true (default) leaves other viewers connected. */
  shared?: boolean;
  /** Aborts the handshake (RfbError CLOSED). */
  signal?: AbortSignal;
  /** Bound for the whole handshake, ms. Default 10 000. */
  timeoutMs?: number;
  /** Encodings to offer, preferred first. Default ['zrle', 'copyrect', 'raw']; Raw is always offered. */
  encodings?: RfbEncodingName[];
}

export async function connectRfb(socket: Duplex, options: ConnectRfbOptions = {}): Promise<RfbClient> {
  const reader = new ByteReader(socket);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const stop = (err: RfbError) => {
    reader.fail(err);
    socket.destroy();
  };
  const timer = setTimeout(() => stop(new RfbError('TIMEOUT', `the RFB handshake did not finish within ${timeoutMs} ms`)), timeoutMs);
  const onAbort = () => stop(new RfbError('CLOSED', 'the RFB handshake was aborted'));
  options.signal?.addEventListener('abort', onAbort, { once: true });
  socket.on('error', () => undefined); // reported through the reader
  try {
    if (options.signal?.aborted) onAbort();
    const write = (b: Buffer) => { if (!socket.destroyed) socket.write(b); };
    const hs = await handshake(reader, write, { password: options.password, username: options.username }, options.shared ?? true);
    return new RfbClient(socket, reader, hs, options.encodings);
  } catch (err) {
    socket.destroy();
    throw err instanceof RfbError ? err : new RfbError('PROTOCOL', (err as Error).message, { cause: err });
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
