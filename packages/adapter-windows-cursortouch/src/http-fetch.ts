/**
 * The MCP client's fetch, over node:http with an Agent the session owns. Three reasons: dispose()
 * can destroy the session's sockets at once (the global fetch pool would keep them alive for its
 * keep-alive timeout, and core's forward() listener waits for them before the lease ends), the
 * Host header can be set (options.host_header) for a Windows-MCP bound to one address, and the
 * connection can go to a unix socket (`socketPath`: core's default forward) while the URL keeps
 * naming the guest's address for the Host header.
 * Redirects (Windows-MCP answers /mcp ⇄ /mcp/ with 307) are followed, method and body kept.
 */
import { Agent, request } from 'node:http';
import { Readable } from 'node:stream';

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

const MAX_REDIRECTS = 3;
const NULL_BODY = new Set([101, 204, 205, 304]);

export function agentFetch(agent: Agent, hostHeader?: string, socketPath?: string): FetchLike {
  const once = (url: URL, init: RequestInit | undefined, fresh = false): Promise<Response> => new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => { headers[k] = v; });
    if (hostHeader) headers.host = hostHeader;
    const req = request({
      host: url.hostname, port: url.port || 80, path: `${url.pathname}${url.search}`,
      method: init?.method ?? 'GET', headers, agent: fresh ? false : agent, ...(init?.signal ? { signal: init.signal } : {}),
      ...(socketPath !== undefined ? { socketPath } : {}),
    }, (res) => {
      const h = new Headers();
      for (const [k, v] of Object.entries(res.headers)) {
        if (Array.isArray(v)) for (const x of v) h.append(k, x);
        else if (v !== undefined) h.set(k, v);
      }
      const status = res.statusCode ?? 502;
      const body = NULL_BODY.has(status) || init?.method === 'HEAD' ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
      if (!body) res.resume();
      resolve(new Response(body, { status, statusText: res.statusMessage ?? '', headers: h }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A kept-alive socket the other end had already closed (the guest server restarted, the
      // tunnel dropped): the request never reached it, so it is sent once more on a new socket.
      if (req.reusedSocket && !fresh && (err.code === 'ECONNRESET' || err.code === 'EPIPE') && !init?.signal?.aborted) once(url, init, true).then(resolve, reject);
      else reject(err);
    });
    const b = init?.body;
    if (b === undefined || b === null) req.end();
    else if (typeof b === 'string' || b instanceof Uint8Array) req.end(b);
    else { req.destroy(); reject(new TypeError('agentFetch sends string or byte bodies only')); }
  });
  return async (input, init) => {
    let url = new URL(String(input));
    for (let hop = 0; ; hop++) {
      const res = await once(url, init);
      const location = res.headers.get('location');
      if (![301, 302, 307, 308].includes(res.status) || !location || hop >= MAX_REDIRECTS) return res;
      await res.body?.cancel().catch(() => undefined);
      url = new URL(location, url);
    }
  };
}
