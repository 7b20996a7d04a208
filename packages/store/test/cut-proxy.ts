/**
 * A TCP proxy on 127.0.0.1 in front of a PostgreSQL port that can cut a connection at an exact
 * point of the wire protocol, for "a connection lost mid-call" tests:
 *
 * - `after-answer`: the next client query (simple `Q` or extended `P`arse) whose SQL contains the
 *   keyword goes to the server; the server's whole answer to it, up to its ReadyForQuery, is read
 *   by the proxy and dropped, and both sides are cut. The statement ran (and, outside a
 *   transaction or for COMMIT, committed), but the client sees only a lost connection.
 * - `before-query`: the matching message is never forwarded; both sides are cut at once, so the
 *   server never sees the statement (an open transaction is rolled back).
 *
 * The proxy parses both directions into protocol messages (the untyped startup / SSLRequest
 * first, then `type, int32 length, body`) and forwards whole messages, so a cut never splits one.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export type CutPoint = 'after-answer' | 'before-query';

export interface Cut {
  /** The SQL text of the message that matched. */
  sql: string;
  point: CutPoint;
  /** After-answer: the command tags the server completed in the dropped answer (`INSERT 0 1`, `COMMIT`), proof the statement ran. */
  completed: string[];
}

export interface CutProxy {
  readonly port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** `url` with its host and port replaced by the proxy's. */
  url(url: string): string;
  /** Cut the next connection that sends a query containing `keyword` (case-insensitive) at `point`; resolves once cut. */
  arm(keyword: string, point: CutPoint): Promise<Cut>;
  /** Forget an arming that never fired. */
  disarm(): void;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

interface Armed { keyword: string; point: CutPoint; resolve: (cut: Cut) => void }

/** Splits a byte stream into whole protocol messages. */
class MessageReader {
  #buf: Buffer = Buffer.alloc(0);
  #untyped: number;
  /** `untyped`: how many untyped messages come first (1 for the client's startup, 0 for the server). */
  constructor(untyped: number) { this.#untyped = untyped; }
  /** One more untyped message follows (the startup after an SSLRequest was answered). */
  expectUntyped(): void { this.#untyped++; }
  push(chunk: Buffer): Buffer[] {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    const out: Buffer[] = [];
    for (;;) {
      const header = this.#untyped > 0 ? 0 : 1;
      if (this.#buf.length < header + 4) break;
      const len = this.#buf.readInt32BE(header);
      const total = header + len;
      if (this.#buf.length < total) break;
      out.push(this.#buf.subarray(0, total));
      this.#buf = this.#buf.subarray(total);
      if (this.#untyped > 0) this.#untyped--;
    }
    return out;
  }
}

/** The SQL of a simple Query or a Parse message; undefined for every other message. */
function sqlOf(msg: Buffer, typed: boolean): string | undefined {
  if (!typed) return undefined;
  const type = String.fromCharCode(msg[0]!);
  const body = msg.subarray(5);
  if (type === 'Q') return body.toString('utf8').replace(/\0$/, '');
  if (type === 'P') {
    const nameEnd = body.indexOf(0);
    const queryEnd = body.indexOf(0, nameEnd + 1);
    return body.subarray(nameEnd + 1, queryEnd).toString('utf8');
  }
  return undefined;
}

export async function startCutProxy(target: { host?: string; port: number }): Promise<CutProxy> {
  const sockets = new Set<Socket>();
  let armed: Armed | undefined;
  let connections = 0;

  const server: Server = createServer((client) => {
    connections++;
    const upstream = connect(target.port, target.host ?? '127.0.0.1');
    sockets.add(client); sockets.add(upstream);
    const cut = () => { client.destroy(); upstream.destroy(); };
    client.on('close', () => { sockets.delete(client); upstream.destroy(); });
    upstream.on('close', () => { sockets.delete(upstream); client.destroy(); });
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);

    const fromClient = new MessageReader(1);
    // The server answers an SSLRequest/GSSENCRequest with one untyped byte, not a message.
    let rawBytesFromServer = 0;
    let started = false;
    // Every Sync or simple Query the client sent (and the startup) is answered by one ReadyForQuery.
    let syncsSent = 0;
    let readySeen = 0;
    // After-answer: the ReadyForQuery count that ends the doomed query's answer.
    let cutAtReady: number | undefined;
    let pending: Armed | undefined;
    let pendingSql = '';
    let holding = false;
    const completed: string[] = [];

    client.on('data', (chunk: Buffer) => {
      const forward: Buffer[] = [];
      for (const msg of fromClient.push(chunk)) {
        const typed = started;
        if (!started) {
          const code = msg.length >= 8 ? msg.readInt32BE(4) : 0;
          if (code === SSL_REQUEST || code === GSS_REQUEST) { rawBytesFromServer++; fromClient.expectUntyped(); } else {
            started = true;
            // The startup is answered (after authentication) by a ReadyForQuery too.
            syncsSent++;
          }
        }
        const sql = sqlOf(msg, typed);
        if (sql !== undefined && armed && pending === undefined && sql.toLowerCase().includes(armed.keyword)) {
          pending = armed;
          pendingSql = sql;
          armed = undefined;
          if (pending.point === 'before-query') {
            if (forward.length) upstream.write(Buffer.concat(forward));
            cut();
            pending.resolve({ sql, point: 'before-query', completed: [] });
            return;
          }
          // Answered by the ReadyForQuery after the next Sync (or this Query itself).
          cutAtReady = syncsSent + 1;
          holding = true;
        }
        if (typed && (msg[0] === 0x53 /* S */ || msg[0] === 0x51 /* Q */)) syncsSent++;
        forward.push(msg);
      }
      if (forward.length) upstream.write(Buffer.concat(forward));
    });

    const fromServer = new MessageReader(0);
    upstream.on('data', (chunk: Buffer) => {
      let data = chunk;
      while (rawBytesFromServer > 0 && data.length > 0) {
        client.write(data.subarray(0, 1));
        data = data.subarray(1);
        rawBytesFromServer--;
      }
      const forward: Buffer[] = [];
      for (const msg of fromServer.push(data)) {
        if (msg[0] === 0x5a /* Z */) readySeen++;
        if (!holding) { forward.push(msg); continue; }
        // Held: the doomed query's answer is read and dropped.
        if (msg[0] === 0x43 /* CommandComplete */) completed.push(msg.subarray(5, msg.length - 1).toString('utf8'));
        if (cutAtReady !== undefined && readySeen >= cutAtReady) {
          if (forward.length) client.write(Buffer.concat(forward));
          cut();
          pending!.resolve({ sql: pendingSql, point: 'after-answer', completed });
          return;
        }
      }
      if (forward.length) client.write(Buffer.concat(forward));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    port,
    get connections() { return connections; },
    url(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    arm(keyword, point) {
      if (armed) throw new Error('[vmhub] [cut-proxy] already armed');
      return new Promise<Cut>((resolve) => { armed = { keyword: keyword.toLowerCase(), point, resolve }; });
    },
    disarm() { armed = undefined; },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
