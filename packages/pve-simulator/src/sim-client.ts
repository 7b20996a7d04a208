/**
 * A minimal client for tests of the simulator itself (and quick probes from other packages):
 * node:https with the simulator's certificate pinned as the only CA, or node:http; form-encoded
 * bodies with repeated keys for arrays, as PVE clients send them.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { PveSimulator } from './index.ts';

export interface SimResponse {
  status: number;
  /** The HTTP reason phrase (PVE's primary error carrier). */
  reason: string;
  /** Parsed JSON body, or undefined for an empty body. */
  body: any;
}

export type FormValue = string | number | boolean | string[];

export interface SimClient {
  get(path: string, query?: Record<string, FormValue>): Promise<SimResponse>;
  post(path: string, form?: Record<string, FormValue>): Promise<SimResponse>;
  put(path: string, form?: Record<string, FormValue>): Promise<SimResponse>;
  del(path: string, query?: Record<string, FormValue>): Promise<SimResponse>;
  /** Polls a task until it stopped; returns its exitstatus. */
  waitTask(upid: string, timeoutMs?: number): Promise<string>;
}

export function encodeForm(form: Record<string, FormValue>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(form)) {
    const values = Array.isArray(v) ? v : [typeof v === 'boolean' ? (v ? '1' : '0') : String(v)];
    for (const x of values) parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(x)}`);
  }
  return parts.join('&');
}

export function simClient(sim: Pick<PveSimulator, 'apiUrl' | 'certificate' | 'token'>, authorization: string | undefined = sim.token.authorization): SimClient {
  // keep-alive: one TLS handshake per client, not per call (the simulator's close() ends the sockets)
  const httpsAgent = new HttpsAgent({ keepAlive: true, ca: sim.certificate?.pem });
  const httpAgent = new HttpAgent({ keepAlive: true });
  const call = (method: string, path: string, form?: Record<string, FormValue>, inQuery = false): Promise<SimResponse> => {
    const qs = form && inQuery ? `?${encodeForm(form)}` : '';
    const body = form && !inQuery ? encodeForm(form) : undefined;
    const url = new URL(`${sim.apiUrl}${path}${qs}`);
    const headers: Record<string, string> = {};
    if (authorization) headers.authorization = authorization;
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    return new Promise((resolve, reject) => {
      const onRes = (res: IncomingMessage): void => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', body: text ? JSON.parse(text) : undefined });
        });
        res.on('error', reject);
      };
      const req = url.protocol === 'https:'
        ? httpsRequest(url, { method, headers, agent: httpsAgent }, onRes)
        : httpRequest(url, { method, headers, agent: httpAgent }, onRes);
      req.on('error', reject);
      req.end(body);
    });
  };
  const client: SimClient = {
    get: (p, q) => call('GET', p, q, true),
    post: (p, f) => call('POST', p, f),
    put: (p, f) => call('PUT', p, f),
    del: (p, q) => call('DELETE', p, q, true),
    async waitTask(upid, timeoutMs = 10000) {
      const node = upid.split(':')[1];
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const r = await client.get(`/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`);
        if (r.status !== 200) throw new Error(`task status ${r.status} ${r.reason}`);
        if (r.body.data.status === 'stopped') return r.body.data.exitstatus as string;
        await new Promise((res) => setTimeout(res, 25));
      }
      throw new Error(`task ${upid} still running after ${timeoutMs} ms`);
    },
  };
  return client;
}
