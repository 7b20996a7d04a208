/**
 * A client for QEMU's two JSON-lines protocols over a unix socket:
 * - QMP (the monitor): a greeting, `qmp_capabilities`, then replies tagged with our `id`;
 *   asynchronous events interleave: they go to the onEvent handler, if any (a restart awaits RESET).
 * - QGA (the guest agent): no greeting; replies are matched in order, so after connecting we
 *   `guest-sync` with a random id and drop whatever stale replies sat in the channel.
 * Commands are sent one at a time: both protocols answer in order, and a command that times out
 * poisons the connection (a late reply could be taken for the next one), so it is closed and the
 * owner reconnects.
 */
import { randomInt } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { VmhubError } from '@vmhub/core';

const SOURCE = 'provider-qemu';

export interface QmpConnectOptions {
  /** 'qmp' (greeting + capabilities) or 'qga' (guest-sync). */
  protocol: 'qmp' | 'qga';
  /** Bound for connect + handshake. */
  timeoutMs: number;
  /** Optional label for errors (the machine identity). */
  label?: string;
}

interface Waiter {
  id: string | undefined;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** An asynchronous QMP event: `{event: "RESET", data: {guest, reason}, timestamp}`. */
export interface QmpEvent {
  event: string;
  data?: Record<string, unknown>;
}

export class QmpError extends Error {
  readonly errorClass: string;
  constructor(errorClass: string, desc: string) {
    super(desc);
    this.name = 'QmpError';
    this.errorClass = errorClass;
  }
}

export class QmpClient {
  readonly protocol: 'qmp' | 'qga';
  readonly path: string;
  #socket: Socket;
  #buffer = '';
  #waiter: Waiter | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #seq = 0;
  #label: string;
  #lineHandler: ((msg: Record<string, unknown>) => void) | undefined;
  #eventHandler: ((event: QmpEvent) => void) | undefined;

  private constructor(socket: Socket, path: string, protocol: 'qmp' | 'qga', label: string) {
    this.#socket = socket;
    this.path = path;
    this.protocol = protocol;
    this.#label = label;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.#onData(chunk));
    socket.on('error', () => this.#fail(new Error('socket error')));
    socket.on('close', () => this.#fail(new Error('connection closed')));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Hear the monitor's asynchronous events (`RESET`, `SHUTDOWN`, …) from now on; one handler at a time. */
  onEvent(handler: ((event: QmpEvent) => void) | undefined): void {
    this.#eventHandler = handler;
  }

  static async connect(path: string, options: QmpConnectOptions): Promise<QmpClient> {
    const label = options.label ?? path;
    const deadline = Date.now() + options.timeoutMs;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect(path);
      const timer = setTimeout(() => { s.destroy(); reject(new Error('connect timed out')); }, options.timeoutMs);
      s.once('connect', () => { clearTimeout(timer); resolve(s); });
      s.once('error', (err) => { clearTimeout(timer); reject(err); });
    }).catch((err: Error) => {
      throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] cannot connect to ${options.protocol.toUpperCase()} socket ${path} (${label}): ${err.message}`, { source: SOURCE, cause: err });
    });
    const client = new QmpClient(socket, path, options.protocol, label);
    try {
      if (options.protocol === 'qmp') {
        await client.#awaitGreeting(Math.max(1, deadline - Date.now()));
        await client.execute('qmp_capabilities', undefined, Math.max(1, deadline - Date.now()));
      } else {
        await client.#sync(Math.max(1, deadline - Date.now()));
      }
    } catch (err) {
      client.close();
      throw err;
    }
    return client;
  }

  async #awaitGreeting(timeoutMs: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(this.#error('INTERNAL', `no QMP greeting within ${timeoutMs} ms (another client may hold the monitor)`)), timeoutMs);
      this.#lineHandler = (msg) => {
        if ('QMP' in msg) { clearTimeout(timer); this.#lineHandler = undefined; resolve(); }
      };
      this.#waiter = { id: undefined, resolve: () => {}, reject: (err) => { clearTimeout(timer); reject(err); } };
    }).finally(() => { this.#waiter = undefined; this.#lineHandler = undefined; });
  }

  async #sync(timeoutMs: number): Promise<void> {
    const id = randomInt(1, 2 ** 31);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(this.#error('TIMEOUT', `guest agent did not answer guest-sync within ${timeoutMs} ms: is qemu-guest-agent running in the guest, or is another channel of this machine still open (the agent's socket serves one client: close it first)?`)), timeoutMs);
      this.#lineHandler = (msg) => {
        if (msg.return === id) { clearTimeout(timer); resolve(); }
      };
      this.#waiter = { id: undefined, resolve: () => {}, reject: (err) => { clearTimeout(timer); reject(err); } };
      // A leading 0xFF byte makes the agent drop any partial JSON it was parsing.
      this.#socket.write('\xff' + JSON.stringify({ execute: 'guest-sync', arguments: { id } }) + '\n', 'latin1');
    }).finally(() => { this.#waiter = undefined; this.#lineHandler = undefined; });
  }

  /** Run one command; resolves with its `return`, rejects with QmpError for an `error` reply. */
  execute(command: string, args?: Record<string, unknown>, timeoutMs = 10_000): Promise<unknown> {
    const run = (): Promise<unknown> => this.#send(command, args, timeoutMs);
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  #send(command: string, args: Record<string, unknown> | undefined, timeoutMs: number): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#error('INTERNAL', `${this.protocol.toUpperCase()} connection is closed`));
    const id = this.protocol === 'qmp' ? `v${++this.#seq}` : undefined;
    const msg: Record<string, unknown> = { execute: command };
    if (args !== undefined) msg.arguments = args;
    if (id) msg.id = id;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiter = undefined;
        reject(this.#error('TIMEOUT', `${command} got no answer within ${timeoutMs} ms`));
        this.close();
      }, timeoutMs);
      this.#waiter = {
        id,
        resolve: (v) => { clearTimeout(timer); this.#waiter = undefined; resolve(v); },
        reject: (e) => { clearTimeout(timer); this.#waiter = undefined; reject(e); },
      };
      this.#socket.write(JSON.stringify(msg) + '\n');
    });
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    let nl: number;
    while ((nl = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, nl).replace(/^[\xff\ufffd\s]+/, '').trim();
      this.#buffer = this.#buffer.slice(nl + 1);
      if (!line) continue;
      let msg: Record<string, unknown>;
      try { msg = JSON.parse(line) as Record<string, unknown>; } catch { continue; }
      if (this.#lineHandler) { this.#lineHandler(msg); continue; }
      if ('event' in msg) { this.#eventHandler?.(msg as unknown as QmpEvent); continue; }
      if ('QMP' in msg) continue;
      const w = this.#waiter;
      if (!w) continue; // a late reply to a command that already timed out
      if (w.id !== undefined && msg.id !== w.id) continue;
      if ('error' in msg) {
        const e = msg.error as { class?: string; desc?: string };
        w.reject(new QmpError(e.class ?? 'GenericError', e.desc ?? 'unknown error'));
      } else {
        w.resolve(msg.return);
      }
    }
  }

  #error(code: 'INTERNAL' | 'TIMEOUT', message: string): VmhubError {
    return new VmhubError(code, `[vmhub] [${SOURCE}] ${this.protocol.toUpperCase()} ${this.#label}: ${message}`, { source: SOURCE });
  }

  #fail(err: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.reject(this.#error('INTERNAL', err.message));
  }

  close(): void {
    this.#fail(new Error('connection closed by vmhub'));
    this.#socket.destroy();
  }
}
