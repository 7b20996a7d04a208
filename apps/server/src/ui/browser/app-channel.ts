/**
 * The View's side of MCP Apps' channel to its host (the io.modelcontextprotocol/ui extension,
 * protocol 2026-01-26): JSON-RPC 2.0 over postMessage with the parent window. ext-apps' App
 * speaks the same wire but bundles the SDK and zod (665 kB minified); this View needs five
 * messages, so it speaks them itself, and the tests drive it with ext-apps' own AppBridge as the
 * host (test/mcp-app.test.ts) — the reference peer, so the two stay interoperable.
 */
export const APPS_PROTOCOL = '2026-01-26';

type Handler = (params: Record<string, unknown>) => unknown;

export class AppChannel {
  #next = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly #notifications = new Map<string, Handler>();
  readonly #requests = new Map<string, Handler>();
  readonly #host: Window;

  constructor(host: Window = window.parent) {
    this.#host = host;
    window.addEventListener('message', (event) => {
      if (event.source !== this.#host) return; // only the host speaks to the View
      this.#receive(event.data as Record<string, unknown>);
    });
    // The host asks before it removes the View, and pings; both are answered at once.
    this.#requests.set('ui/resource-teardown', () => ({}));
    this.#requests.set('ping', () => ({}));
  }

  /** Handle a notification from the host (ui/notifications/tool-input, …/tool-result, …). */
  on(method: string, handler: Handler): void {
    this.#notifications.set(method, handler);
  }

  request<T>(method: string, params: Record<string, unknown>): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#host.postMessage({ jsonrpc: '2.0', id, method, params }, '*');
    });
  }

  notify(method: string, params: Record<string, unknown> = {}): void {
    this.#host.postMessage({ jsonrpc: '2.0', method, params }, '*');
  }

  /** ui/initialize, then ui/notifications/initialized: the host sends the tool's input and result after it. */
  async connect(appInfo: { name: string; version: string }): Promise<Record<string, unknown>> {
    const result = await this.request<Record<string, unknown>>('ui/initialize', { appInfo, appCapabilities: {}, protocolVersion: APPS_PROTOCOL });
    this.notify('ui/notifications/initialized');
    return result;
  }

  #receive(m: Record<string, unknown>): void {
    if (m?.jsonrpc !== '2.0') return;
    if (typeof m.method === 'string') {
      const params = (m.params ?? {}) as Record<string, unknown>;
      if (m.id === undefined) return void this.#notifications.get(m.method)?.(params);
      const handler = this.#requests.get(m.method);
      const reply = handler
        ? { jsonrpc: '2.0', id: m.id, result: handler(params) }
        : { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `the vmhub View does not handle ${m.method}` } };
      return void this.#host.postMessage(reply, '*');
    }
    const waiting = typeof m.id === 'number' ? this.#pending.get(m.id) : undefined;
    if (!waiting) return;
    this.#pending.delete(m.id as number);
    const error = m.error as { message?: string } | undefined;
    if (error) waiting.reject(new Error(error.message ?? 'the host refused'));
    else waiting.resolve(m.result);
  }
}
