/**
 * The lease's RFB client (@vmhub/rfb): opened lazily on the first screen or input call, kept for
 * the session so its framebuffer stays current (the client keeps asking for incremental updates),
 * reopened if the server drops it, closed in dispose(). The stream is the guest's Screen Sharing
 * port through the provider (`lease.connect(vnc_port)`) or, with `vnc: "console"`, the provider's
 * hypervisor-side VNC (`console().openVnc()`), whose password is used unless the template names one.
 */
import type { Duplex } from 'node:stream';
import type { ConsoleHandle } from '@vmhub/core';
import { connectRfb, type RfbClient } from '@vmhub/rfb';
import { DOCS, macError, SOURCE } from './errors.ts';
import { vncAuth, type MacosOptions } from './options.ts';

export interface VncSource {
  connect(port: number): Promise<Duplex>;
  console(): Promise<ConsoleHandle>;
  /** A per-lease secret the provider made (lease.secret). */
  secret?(name: string): Promise<string | undefined>;
}

export class VncLink {
  readonly #options: MacosOptions;
  readonly #source: VncSource;
  #client?: Promise<RfbClient>;
  #closed = false;
  /** When the last input event was sent: a screenshot soon after waits for the next update. */
  lastInputAt = 0;

  constructor(options: MacosOptions, source: VncSource) {
    this.#options = options;
    this.#source = source;
  }

  client(): Promise<RfbClient> {
    if (this.#closed) return Promise.reject(macError('LEASE_EXPIRED', 'the VNC connection of this lease was closed'));
    if (!this.#client) {
      const opening = this.#open();
      this.#client = opening;
      opening.then((c) => c.once('close', () => { if (this.#client === opening) this.#client = undefined; }), () => { if (this.#client === opening) this.#client = undefined; });
    }
    return this.#client;
  }

  /** The connected client if one is open now (probe uses it without connecting). */
  get opened(): Promise<RfbClient> | undefined {
    return this.#client;
  }

  async #open(): Promise<RfbClient> {
    const o = this.#options;
    let socket: Duplex;
    let consolePassword: string | undefined;
    const where = o.vnc === 'console' ? "the provider's console VNC" : `the guest's Screen Sharing (port ${o.vnc_port})`;
    try {
      if (o.vnc === 'console') {
        const con = await this.#source.console();
        if (!con.openVnc) throw macError('CAPABILITY_UNAVAILABLE', `this provider's console (${con.kind}) has no VNC server: use vnc: "screen-sharing" with Screen Sharing on in the guest (${DOCS})`);
        const vnc = await con.openVnc();
        socket = vnc.socket;
        consolePassword = vnc.password;
      } else {
        socket = await this.#source.connect(o.vnc_port);
      }
    } catch (err) {
      if ((err as { source?: string }).source === SOURCE) throw err;
      throw macError('CAPABILITY_UNAVAILABLE', `cannot reach ${where}: ${(err as Error).message}. ${o.vnc === 'console' ? 'Does the provider offer a VNC console?' : 'Turn on Screen Sharing (System Settings → General → Sharing) in the guest'} (${DOCS})`, { cause: err });
    }
    const leasePassword = o.vnc_password_secret ? await this.#source.secret?.(o.vnc_password_secret) : undefined;
    const auth = leasePassword !== undefined ? { ...vncAuth({ ...o, vnc_password_env: undefined }, consolePassword), password: leasePassword } : vncAuth(o, consolePassword);
    try {
      const client = await connectRfb(socket, { ...auth, timeoutMs: o.connect_timeout_ms });
      client.on('error', () => { /* 'close' follows; the next call reconnects */ });
      return client;
    } catch (err) {
      socket.destroy();
      const code = (err as { code?: string }).code;
      if (code === 'AUTH_FAILED') {
        throw macError('CAPABILITY_UNAVAILABLE', `${where} refused the VNC credentials (${(err as Error).message}): check vnc_username/vnc_username_env and vnc_password_env (${DOCS})`, { cause: err });
      }
      if (code === 'UNSUPPORTED') {
        throw macError('CAPABILITY_UNAVAILABLE', `${where} wants something this RFB client does not speak (${(err as Error).message}) (${DOCS})`, { cause: err });
      }
      throw macError(code === 'TIMEOUT' ? 'TIMEOUT' : 'INTERNAL', `the RFB handshake with ${where} failed: ${(err as Error).message}`, { cause: err });
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#client;
    this.#client = undefined;
    const c = await pending?.catch(() => undefined);
    await c?.close().catch(() => undefined);
  }
}
