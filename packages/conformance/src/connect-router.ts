/**
 * connectRouter(): the real tool router from @vmhub/core/router on an in-process McpServer,
 * reached by the SDK's Client over an in-memory transport. The host behind it opens ONE session
 * of the adapter on the given lease (as the server does on a lease's first call) and binds every
 * call to it, so a suite drives an adapter exactly as an agent would — schema validation,
 * capability gating, coordinate mapping and error conversion included. close() disposes the
 * session. Catalog and lease tools are not served (they answer CAPABILITY_UNAVAILABLE).
 */
import { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer, type CallToolResult } from '@modelcontextprotocol/server';
import { VmhubError, type Adapter, type ExecOptions, type GuestChannel, type LeaseContext, type OpenSession } from '@vmhub/core';
import { createRouter, DetachedJobs, type HostClone, type HostCloning, type Router, type RouterHost, type RouterSettings, type ScreenState } from '@vmhub/core/router';

export interface ConnectRouterOptions {
  adapter: Adapter;
  /** The lease to open the session on. */
  context: LeaseContext;
  /** Override router settings (screenshot budget, file cap, call timeout). */
  settings?: Partial<RouterSettings>;
  /**
   * What vm_clone_repo's host side returns (the router calls it, then the adapter's cloneRepo
   * with the archive). Default: CAPABILITY_UNAVAILABLE, as a server without git would answer.
   */
  cloneOnHost?: HostCloning['onHost'];
}

/** One GuestChannel.exec the adapter made, as the channel saw it. */
export interface ExecSeen {
  argv: string[];
  /** The options.signal the adapter passed (undefined: none). */
  signal?: AbortSignal;
  /** Set when the channel's exec settled. */
  settledAt?: number;
}

export interface RouterConnection {
  client: Client;
  router: Router;
  /** The session the router's calls run on (opened by connectRouter, disposed by close()). */
  session: OpenSession;
  /** The lease as the session sees it (its channel() is observed). */
  lease: LeaseContext;
  /** Every GuestChannel.exec the adapter made through this connection, in order. */
  execs: ExecSeen[];
  /** The lease id every VM-bound call should pass (the context's). */
  leaseId: string;
  /** Call a tool; `lease_id` is added unless given. Never throws for tool errors (isError results). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export const DEFAULT_ROUTER_SETTINGS: RouterSettings = {
  denyTools: [],
  screenshot: { format: 'png', maxWidth: 1280, maxHeight: 800, maxBytes: 800_000 },
  maxFileBytes: 8 * 1024 * 1024,
  callTimeoutSeconds: 30,
};

/**
 * The context's channel, observed: exec calls (argv, the signal passed, when they settled) are
 * recorded; everything else goes straight to the channel.
 */
function observed(channel: GuestChannel, execs: ExecSeen[]): GuestChannel {
  return new Proxy(channel, {
    get(target, prop) {
      if (prop === 'exec') {
        return async (argv: string[], o?: ExecOptions) => {
          const seen: ExecSeen = { argv: [...argv], ...(o?.signal ? { signal: o.signal } : {}) };
          execs.push(seen);
          try { return await target.exec(argv, o); } finally { seen.settledAt = Date.now(); }
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export async function connectRouter(options: ConnectRouterOptions): Promise<RouterConnection> {
  const { adapter } = options;
  const execs: ExecSeen[] = [];
  const context: LeaseContext = { ...options.context, channel: async () => observed(await options.context.channel(), execs) };
  const session = await adapter.open(context);
  const screen: ScreenState = {};
  const jobs = new DetachedJobs();
  const host: RouterHost = {
    sessions: {
      async bind(leaseId, signal) {
        if (leaseId !== context.lease_id) throw new VmhubError('NOT_FOUND', `lease ${leaseId} not found (the conformance host serves only ${context.lease_id})`);
        return {
          lease_id: leaseId,
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
          template: context.template,
          adapter,
          session,
          screen,
          jobs,
          context: { ...context, signal },
        };
      },
    },
    ...(options.cloneOnHost ? { clone: { onHost: options.cloneOnHost } } : {}),
    settings: { ...DEFAULT_ROUTER_SETTINGS, ...options.settings },
  };
  const router = createRouter(host);
  const server = new McpServer({ name: 'vmhub-conformance', version: '0.0.0' }, { capabilities: { tools: {} } });
  router.register(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'vmhub-conformance-client', version: '0.0.0' });
  await client.connect(clientSide);
  // Listing once makes the Client validate every later result against the tool's outputSchema.
  await client.listTools();
  return {
    client, router, execs, session, lease: context, leaseId: context.lease_id,
    async call(name, args = {}) {
      return await client.callTool({ name, arguments: { lease_id: context.lease_id, ...args } }) as CallToolResult;
    },
    async close() {
      await client.close();
      await server.close();
      jobs.dispose();
      await session.dispose();
    },
  };
}

/** A HostClone whose archive is `tar` (e.g. from makeTar), for vm_clone_repo through connectRouter. */
export function hostCloneOf(tar: Buffer, files: number, commit = '0'.repeat(40)): HostClone {
  return { archive: Readable.from([tar]), commit, files, cleanup: async () => undefined };
}
