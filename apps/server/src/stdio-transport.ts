/**
 * A stdio transport for the MCP server (newline-delimited JSON-RPC, as the SDK's own), built for
 * large messages: chunks are kept in a list and joined once per line, so a 40 MB request costs one
 * copy instead of the quadratic re-concatenation and re-scanning of the SDK's ReadBuffer (seen:
 * 9 s for a 16 MB vm_put_file, a client timeout at 44 MB). A line over the size limit is
 * discarded and answered with a JSON-RPC error carrying the request's id (read by a streaming
 * scan of the discarded line), so the client's call fails at once instead of at its timeout; a
 * line that is not JSON-RPC gets an error with its id too. The connection stays up.
 * Every message is delivered with the principal of stdio, the local OS user (http/principal.ts)
 * — to a server connected to it directly; serveStdio (cli.ts) drops that extra, and the server
 * supplies the principal itself (SessionOptions.transport 'stdio').
 * It counts the requests delivered and not yet answered (a cancelled one is never answered):
 * when stdin closes, the server waits for idle() so every call in flight still gets its answer.
 * `onMessage` sees each message's method before it is delivered (cli.ts starts the runtime on the
 * first real request, never on a `server/discover` probe). `onClosed` is called after close():
 * serveStdio owns `onclose`.
 */
import process from 'node:process';
import { parseJSONRPCMessage, type JSONRPCMessage, type MessageExtraInfo, type Transport } from '@modelcontextprotocol/server';
import { MessageIdScanner } from './http/message-id.ts';
import { localPrincipal, principalAuthInfo } from './http/principal.ts';

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  readonly #stdin: NodeJS.ReadableStream;
  readonly #stdout: NodeJS.WritableStream;
  readonly #maxLineBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  /** Set while a line over the limit is being discarded: reads that line's id. */
  #discarding: MessageIdScanner | undefined;
  #started = false;
  /** Ids of requests delivered and not yet answered (nor cancelled). */
  readonly #open = new Set<string | number>();
  #idle: Array<() => void> = [];
  readonly #extra: MessageExtraInfo = { authInfo: principalAuthInfo(localPrincipal(), 'stdio') };

  readonly #onMessage: ((method: string) => void) | undefined;
  readonly #onClosed: (() => void) | undefined;

  constructor(options: { maxLineBytes: number; stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream; onMessage?: (method: string) => void; onClosed?: () => void }) {
    this.#maxLineBytes = options.maxLineBytes;
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#onMessage = options.onMessage;
    this.#onClosed = options.onClosed;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('LineStdioTransport already started');
    this.#started = true;
    this.#stdin.on('data', this.#ondata);
    this.#stdin.on('error', this.#onerror);
  }

  readonly #onerror = (error: Error) => this.onerror?.(error);

  readonly #ondata = (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      this.#push(chunk.subarray(start, nl));
      this.#line();
      start = nl + 1;
    }
    if (start < chunk.length) this.#push(chunk.subarray(start));
  };

  #push(part: Buffer): void {
    if (part.length === 0) return;
    if (this.#discarding) { this.#discarding.feed(part); return; }
    if (this.#size + part.length > this.#maxLineBytes) {
      this.#discarding = new MessageIdScanner();
      for (const c of this.#chunks) this.#discarding.feed(c);
      this.#discarding.feed(part);
      this.#chunks = [];
      this.#size = 0;
      return;
    }
    this.#chunks.push(part);
    this.#size += part.length;
  }

  #line(): void {
    if (this.#discarding) {
      const scan = this.#discarding;
      this.#discarding = undefined;
      scan.end();
      this.onerror?.(new Error(`message over ${this.#maxLineBytes} bytes discarded`));
      this.#fail(scan.id, -32600, `request larger than ${this.#maxLineBytes} bytes (${Math.floor(this.#maxLineBytes / 1048576)} MiB) was discarded: send large files in parts (vm_put_file up to files.max_bytes; vm_get_file offset/length)`);
      return;
    }
    if (this.#size === 0) return;
    const bytes = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size);
    this.#chunks = [];
    this.#size = 0;
    const text = bytes.toString('utf8').replace(/\r$/, '');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      this.onerror?.(error as Error);
      const scan = new MessageIdScanner();
      scan.feed(bytes);
      scan.end();
      this.#fail(scan.id, -32700, 'message is not valid JSON');
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(json);
    } catch (error) {
      this.onerror?.(new Error(`not a JSON-RPC message: ${(error as Error).message.slice(0, 200)}`));
      // Only what looks like a request is answered: a malformed response must not get a reply.
      const m = json as { id?: unknown; method?: unknown } | null;
      if (m && typeof m === 'object' && 'method' in m) this.#fail(typeof m.id === 'string' || typeof m.id === 'number' ? m.id : undefined, -32600, 'not a valid JSON-RPC request (jsonrpc "2.0", a string method, an id)');
      return;
    }
    const m = message as { id?: string | number; method?: string; params?: { requestId?: string | number } };
    if (m.method !== undefined && m.id !== undefined) this.#open.add(m.id);
    // The SDK sends no answer to a request cancelled by its client.
    if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) this.#answered(m.params.requestId);
    if (m.method !== undefined) this.#onMessage?.(m.method);
    this.onmessage?.(message, this.#extra);
  }

  /** Requests delivered and not yet answered (nor cancelled). */
  get pending(): number {
    return this.#open.size;
  }

  /** Resolves once every request delivered so far has been answered (or cancelled). */
  idle(): Promise<void> {
    if (this.#open.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #answered(id: string | number): void {
    if (!this.#open.delete(id) || this.#open.size > 0) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  #fail(id: string | number | undefined, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', id: (id ?? null) as unknown as number, error: { code, message } });
  }

  async close(): Promise<void> {
    this.#stdin.off('data', this.#ondata);
    this.#stdin.off('error', this.#onerror);
    if (this.#stdin.listenerCount('data') === 0) (this.#stdin as NodeJS.ReadStream).pause?.();
    this.#chunks = [];
    this.onclose?.();
    this.#onClosed?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const m = message as { id?: string | number; method?: string };
    if (m.method === undefined && m.id !== undefined && m.id !== null) this.#answered(m.id);
    return new Promise((resolve) => {
      const out = this.#stdout as NodeJS.WritableStream & { destroyed?: boolean };
      // A client gone altogether (stdout closed): the answer is dropped, never awaited forever.
      if (out.destroyed) return resolve();
      if (out.write(JSON.stringify(message) + '\n')) return resolve();
      const done = () => { out.off('drain', done); out.off('close', done); resolve(); };
      out.once('drain', done);
      out.once('close', done);
    });
  }
}
