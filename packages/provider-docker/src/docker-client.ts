/**
 * A small Docker Engine API client over node:http: JSON requests, raw streams, and hijacked
 * connections (exec attach). Paths are pinned to one API version (Debian's docker.io 20.10 speaks
 * 1.41) so a newer daemon answers in the shape this code was written for.
 */
import http from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import { VmhubError } from '@vmhub/core';
import { parseDockerHost, type DockerEndpoint } from './docker-host.ts';

const SOURCE = 'provider-docker';
const UNREACHABLE = new Set(['ENOENT', 'ECONNREFUSED', 'EACCES', 'ENOTSOCK', 'EHOSTUNREACH', 'ENETUNREACH']);

export interface RequestOptions {
  query?: Record<string, string | number | boolean | string[] | undefined>;
  /** A JSON value, raw bytes, or a stream (sent chunked). */
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Send the path without the pinned version: the daemon answers in its own. Only for /_ping and
   * /version, which must work on an engine older than the pin to say so (it refuses a versioned
   * path newer than it speaks with 400, on every endpoint).
   */
  unversioned?: boolean;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export class DockerClient {
  readonly endpoint: DockerEndpoint;
  readonly apiVersion: string;
  readonly #agent: http.Agent;
  readonly #timeoutMs: number;

  constructor(options: { host?: string; apiVersion?: string; timeoutMs?: number } = {}) {
    this.endpoint = parseDockerHost(options.host);
    this.apiVersion = options.apiVersion ?? '1.41';
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    // Keep-alive: a click must not pay for a new connection to the daemon.
    this.#agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  }

  /** Where the daemon is, for messages: a socket path or host:port. */
  get where(): string {
    return this.endpoint.socketPath ?? `${this.endpoint.host}:${this.endpoint.port}`;
  }

  path(path: string, query?: RequestOptions['query'], unversioned = false): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined) continue;
      if (Array.isArray(v)) for (const item of v) q.append(k, item);
      else q.set(k, typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
    }
    const qs = q.toString();
    return `${unversioned ? '' : `/v${this.apiVersion}`}${path}${qs ? `?${qs}` : ''}`;
  }

  #options(method: string, path: string, opts: RequestOptions): http.RequestOptions {
    const headers: Record<string, string> = { ...opts.headers };
    const base: http.RequestOptions = { method, path: this.path(path, opts.query, opts.unversioned), headers, agent: this.#agent };
    if (this.endpoint.socketPath) base.socketPath = this.endpoint.socketPath;
    else {
      base.host = this.endpoint.host;
      base.port = this.endpoint.port;
    }
    return base;
  }

  /** Send a request; the response stream is returned unread (status not checked). */
  stream(method: string, path: string, opts: RequestOptions = {}): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      const o = this.#options(method, path, opts);
      const body = encodeBody(opts.body, o.headers as Record<string, string>);
      const req = http.request(o);
      const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
      const timer = timeoutMs > 0 ? setTimeout(() => req.destroy(new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] Docker API ${method} ${path} took longer than ${timeoutMs} ms`, { source: SOURCE })), timeoutMs) : undefined;
      const onAbort = (): void => { req.destroy(new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] Docker API ${method} ${path} aborted`, { source: SOURCE })); };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      req.on('response', (res) => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        resolve(res);
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        reject(this.mapTransportError(err, method, path));
      });
      if (body && typeof (body as Readable).pipe === 'function') (body as Readable).on('error', (e) => req.destroy(e)).pipe(req);
      else req.end(body as Buffer | undefined);
    });
  }

  /** Send a request and read the whole response (status not checked). */
  async raw(method: string, path: string, opts: RequestOptions = {}): Promise<RawResponse> {
    const res = await this.stream(method, path, opts);
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) };
  }

  /** JSON request; any status >= 400 becomes a VmhubError (404 → NOT_FOUND). */
  async json<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.raw(method, path, opts);
    if (res.status >= 400) throw this.httpError(method, path, res.status, res.body);
    if (res.body.length === 0) return undefined as T;
    return JSON.parse(res.body.toString('utf8')) as T;
  }

  /**
   * POST with `Upgrade: tcp` and take over the connection (exec start, attach). Returns the raw
   * socket (multiplexed frames when the exec has no TTY) plus any bytes that came with the headers.
   */
  hijack(path: string, body: unknown, timeoutMs = 10_000): Promise<{ socket: Duplex; head: Buffer }> {
    return new Promise((resolve, reject) => {
      const o = this.#options('POST', path, { headers: { Connection: 'Upgrade', Upgrade: 'tcp' } });
      o.agent = false;
      const payload = encodeBody(body, o.headers as Record<string, string>) as Buffer;
      const req = http.request(o);
      const timer = setTimeout(() => req.destroy(new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] Docker API POST ${path} did not upgrade within ${timeoutMs} ms`, { source: SOURCE })), timeoutMs);
      req.on('upgrade', (_res, socket, head) => {
        clearTimeout(timer);
        socket.setNoDelay?.(true);
        resolve({ socket, head });
      });
      req.on('response', async (res) => {
        // The daemon answers 200 (raw stream, no upgrade) or an error; either way read it as one.
        clearTimeout(timer);
        const chunks: Buffer[] = [];
        for await (const c of res) chunks.push(c as Buffer);
        if ((res.statusCode ?? 0) >= 400) reject(this.httpError('POST', path, res.statusCode ?? 0, Buffer.concat(chunks)));
        else reject(new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] Docker API POST ${path} answered ${res.statusCode} without upgrading the connection`, { source: SOURCE }));
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(this.mapTransportError(err, 'POST', path));
      });
      req.end(payload);
    });
  }

  httpError(method: string, path: string, status: number, body: Buffer): VmhubError {
    let message = body.toString('utf8').trim();
    try {
      message = (JSON.parse(message) as { message?: string }).message ?? message;
    } catch { /* plain text body */ }
    const text = `[vmhub] [${SOURCE}] Docker API ${method} ${path} → ${status}: ${message || http.STATUS_CODES[status]}`;
    const details = { status, docker_message: message };
    if (status === 404) return new VmhubError('NOT_FOUND', text, { source: SOURCE, details });
    if (status === 409) return new VmhubError('LOCK_CONTENTION', text, { source: SOURCE, details });
    if (status === 400) return new VmhubError('INVALID_REQUEST', text, { source: SOURCE, details });
    return new VmhubError('INTERNAL', text, { source: SOURCE, details });
  }

  /** The reason an operator sees when the daemon cannot be reached. */
  unreachableReason(err?: unknown): string {
    const code = (err as { code?: string } | undefined)?.code;
    const why = code ? ` (${code})` : '';
    return `Docker daemon not reachable at ${this.where}${why}: start it (dockerd) or set DOCKER_HOST`;
  }

  mapTransportError(err: unknown, method: string, path: string): VmhubError {
    if (VmhubError.is(err)) return err;
    const code = (err as { code?: string }).code;
    if (code !== undefined && UNREACHABLE.has(code)) {
      return new VmhubError('NODE_UNAVAILABLE', `[vmhub] [${SOURCE}] ${this.unreachableReason(err)}`, { source: SOURCE, cause: err, details: { code } });
    }
    return new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] Docker API ${method} ${path} failed: ${(err as Error).message}`, { source: SOURCE, cause: err });
  }

  close(): void {
    this.#agent.destroy();
  }
}

function encodeBody(body: unknown, headers: Record<string, string>): Buffer | Readable | undefined {
  if (body === undefined) return undefined;
  if (Buffer.isBuffer(body)) {
    headers['Content-Type'] ??= 'application/octet-stream';
    headers['Content-Length'] = String(body.length);
    return body;
  }
  if (body && typeof (body as Readable).pipe === 'function') {
    headers['Content-Type'] ??= 'application/x-tar';
    return body as Readable;
  }
  const buf = Buffer.from(JSON.stringify(body));
  headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = String(buf.length);
  return buf;
}
