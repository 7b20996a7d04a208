/**
 * One Proxmox API endpoint over got: token auth, form encoding the way pve-http-server decodes it
 * (booleans 1/0, arrays as repeated keys), a timeout on every request, and bounded retries with
 * exponential backoff and full jitter on transient failures (no answer, 5xx that is not Proxmox
 * talking about the VM, 595–599). 4xx is never retried. Every call is counted per endpoint so
 * tests can report what they exercised.
 */
import type http from 'node:http';
import type https from 'node:https';
import { got, type Got } from 'got';
import type { ResolvedEndpoint } from './config.ts';
import { isTransient, PveApiError } from './pve-errors.ts';
import { createAgent } from './tls.ts';

export type Param = string | number | boolean | string[] | undefined;
export type Params = Record<string, Param>;

export interface ClientSettings {
  timeoutMs: number;
  retries: number;
  retryBaseMs: number;
}

export interface CallOptions {
  /** 'transient' (default): retry transient failures; 'none': the caller handles ambiguity itself. */
  retry?: 'transient' | 'none';
  timeoutMs?: number;
  signal?: AbortSignal;
}

export function encodeParams(params: Params): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      const text = typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text)}`);
    }
  }
  return parts.join('&');
}

export function backoffMs(attempt: number, baseMs: number, capMs = 8000): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class PveClient {
  readonly endpoint: ResolvedEndpoint;
  readonly #settings: ClientSettings;
  readonly #agent: http.Agent;
  readonly #got: Got;
  /** `METHOD /path/template` → calls made (ids replaced by placeholders). */
  readonly calls = new Map<string, number>();

  constructor(endpoint: ResolvedEndpoint, settings: ClientSettings) {
    this.endpoint = endpoint;
    this.#settings = settings;
    this.#agent = createAgent(endpoint);
    this.#got = got.extend({
      prefixUrl: endpoint.baseUrl,
      agent: { http: this.#agent, https: this.#agent as https.Agent },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      responseType: 'text',
      headers: { authorization: `PVEAPIToken=${endpoint.tokenId}=${endpoint.token}`, accept: 'application/json' },
    });
  }

  get<T>(path: string, params: Params = {}, options?: CallOptions): Promise<T> {
    return this.request<T>('GET', path, params, options);
  }
  post<T>(path: string, params: Params = {}, options?: CallOptions): Promise<T> {
    return this.request<T>('POST', path, params, options);
  }
  put<T>(path: string, params: Params = {}, options?: CallOptions): Promise<T> {
    return this.request<T>('PUT', path, params, options);
  }
  delete<T>(path: string, params: Params = {}, options?: CallOptions): Promise<T> {
    return this.request<T>('DELETE', path, params, options);
  }

  async request<T>(method: string, path: string, params: Params, options: CallOptions = {}): Promise<T> {
    const retries = options.retry === 'none' ? 0 : this.#settings.retries;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#once<T>(method, path, params, options);
      } catch (err) {
        if (!(err instanceof PveApiError) || attempt >= retries || !isTransient(err) || options.signal?.aborted) throw err;
        await sleep(backoffMs(attempt, this.#settings.retryBaseMs), options.signal);
      }
    }
  }

  async #once<T>(method: string, path: string, params: Params, options: CallOptions): Promise<T> {
    const key = `${method} ${path.replace(/\/\d+(?=\/|$)/g, '/{id}').replace(/UPID:[^/]+/g, '{upid}')}`;
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    const encoded = encodeParams(params);
    const inQuery = method === 'GET' || method === 'DELETE';
    const url = path.replace(/^\//, '') + (inQuery && encoded ? `?${encoded}` : '');
    const base = { method: method as 'GET', timeout: { request: options.timeoutMs ?? this.#settings.timeoutMs }, signal: options.signal };
    let response;
    try {
      response = await this.#got(url, inQuery || !encoded ? base : { ...base, body: encoded, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    } catch (err) {
      const e = err as { code?: string; message?: string; name?: string };
      // The message of a TLS pin failure is ours and names the fix; keep it.
      const message = e.name === 'TimeoutError' ? `timed out: no answer within ${options.timeoutMs ?? this.#settings.timeoutMs} ms` : (e.message ?? String(err));
      const pin = (err as { cause?: unknown }).cause;
      if (pin && typeof pin === 'object' && (pin as { details?: { reason?: string } }).details?.reason === 'tls_fingerprint_mismatch') throw pin;
      throw new PveApiError({ status: 0, message, method, path, endpoint: this.endpoint.id, netCode: e.code });
    }
    let body: { data?: unknown; errors?: Record<string, string>; message?: string } | undefined;
    try {
      body = response.body ? JSON.parse(response.body) : undefined;
    } catch {
      body = undefined;
    }
    if (response.statusCode === 200) {
      if (!body || !('data' in body)) throw new PveApiError({ status: 502, message: 'answer is not a JSON {data} envelope', method, path, endpoint: this.endpoint.id });
      return body.data as T;
    }
    const message = (typeof body?.message === 'string' && body.message.trim()) || response.statusMessage || `HTTP ${response.statusCode}`;
    throw new PveApiError({ status: response.statusCode, message: message.trim(), errors: body?.errors ?? undefined, method, path, endpoint: this.endpoint.id });
  }

  close(): void {
    this.#agent.destroy();
  }
}
