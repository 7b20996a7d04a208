/**
 * Composition: configuration → McpServer + router (answer the handshake at once) → runtime
 * (store, plugins, lease manager) in the background. Nothing here knows a hypervisor or a
 * desktop: that lives in the plugins.
 * An McpServer serves one 2025 connection (stdio) or session (HTTP, Mcp-Session-Id), or one
 * 2026-07-28 request (stateless HTTP) or connection (stdio): session() makes one, and factory()
 * is the SDK's McpServerFactory over it. The router and the runtime are the hub's, shared by all.
 * Who calls comes with each request (CallExtra: the principal from authInfo, the client from the
 * 2026-07-28 `_meta` envelope or the 2025 initialize), never from the instance.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpServer, type McpRequestContext } from '@modelcontextprotocol/server';
import { LIVE_LEASE_STATES, resolveToolsets } from '@vmhub/core';
import { loadConfig, type VmhubConfig } from '@vmhub/core/config';
import { createRouter, type CallExtra, type Router, type RouterHost } from '@vmhub/core/router';
import { VERSION } from './catalog.ts';
import { hostClone } from './github/host-clone.ts';
import { ocrHost } from './ocr.ts';
import { localPrincipal, principalAuthInfo, principalOf } from './http/principal.ts';
import { leaseView } from './leases/view.ts';
import { appToolList, registerMcpApp } from './mcp-app.ts';
import { recordingUri, registerResources } from './resources.ts';
import { createLive, liveHooks, type Live } from './live/index.ts';
import { log } from './log.ts';
import { startRuntime, type Runtime } from './runtime.ts';

export const INSTRUCTIONS = [
  'vmhub gives you machines. Workflow: vm_list_templates → vm_lease_create {template, wait_seconds: 20} →',
  'vm_lease_status {lease_id, wait_seconds: 20} until status is "ready" → drive it (vm_screenshot, vm_click,',
  'vm_type, vm_key, vm_exec, files) → vm_lease_release. Coordinates are pixels of your latest screenshot.',
  'CAPABILITY_UNAVAILABLE means this VM cannot do that: pick another tool or template, do not retry.',
  'Leases expire (renew with vm_lease_renew; vm_lease_list finds yours); errors carry a hint and a retryable flag.',
].join(' ');

export interface VmhubSession {
  mcp: McpServer;
  router: Router;
}

export interface SessionOptions {
  /**
   * The transport the instance serves: on 'stdio' the calls' principal is the local OS user
   * (serveStdio hands no authInfo on); on 'http' (the default) it is each request's bearer
   * principal (`req.auth`, passed on by the SDK's transports).
   */
  transport?: 'stdio' | 'http';
}

/**
 * One process's vmhub: configuration and the runtime (store, plugins, lease manager), shared by
 * every MCP session — one over stdio, or many over HTTP.
 */
export interface VmhubHub {
  config: VmhubConfig;
  /** Starts (once) and resolves to the runtime: store open, plugins loaded. */
  runtime(): Promise<Runtime>;
  /** The agents' router, shared by every instance (absent in hand-made test hubs). */
  router?: Router;
  /** A new McpServer with every tool registered, backed by the shared runtime. */
  session(options?: SessionOptions): VmhubSession;
  /** The SDK's McpServerFactory (serveStdio): session(options)'s McpServer (absent in hand-made test hubs). */
  factory?(options?: SessionOptions): (ctx?: McpRequestContext) => McpServer;
  /**
   * Start the runtime in the background, if not yet (the first real request: a 2025 client's
   * `initialized`, any 2026-07-28 request but `server/discover` — a probe, maybe from a process
   * spawned only for it, must not open the store or start the reaper). Absent in hand-made test hubs.
   */
  warm?(): void;
  /** The live view's side of this hub (recordings, take-over); absent in hand-made test hubs. */
  live?: Live;
  /**
   * Let the provisioning this process started finish (its claims renewed meanwhile): warm pools
   * stop filling, and every lease being provisioned reaches ready or failed (bounded by its
   * template's ready timeout). A runtime never started is not started. Then call close().
   * Absent in hand-made test hubs.
   */
  drain?(): Promise<void>;
  close(): Promise<void>;
}

export interface VmhubServer {
  /** The hub's router (shared by every instance factory() makes). */
  router: Router;
  /** The stdio McpServerFactory: serveStdio(server.factory, {transport}) (cli.ts). */
  factory: (ctx?: McpRequestContext) => McpServer;
  /** VmhubHub.warm. */
  warm(): void;
  config: VmhubConfig;
  runtime(): Promise<Runtime>;
  /** VmhubHub.drain: stdin closed, finish what was started before close(). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** The hub createVmhubHub makes: every optional member there. */
export type FullVmhubHub = VmhubHub & Required<Pick<VmhubHub, 'router' | 'factory' | 'warm' | 'live' | 'drain'>>;

export function createVmhubHub(options: { config?: VmhubConfig; from?: string } = {}): FullVmhubHub {
  const config = options.config ?? loadConfig();
  let runtime: Promise<Runtime> | undefined;
  const rt = (): Promise<Runtime> => {
    if (!runtime) {
      runtime = startRuntime(config, options.from ?? import.meta.url);
      runtime.then(
        (r) => {
          // Old recordings are swept once the store (and so the recordings' folder) is known.
          live.recordings.start();
          log('info', 'vmhub server ready', { version: VERSION, db: r.store.path, instance: config.instance, templates: [...r.registry.templates.keys()], plugins: r.registry.plugins.map((p) => `${p.kind}:${p.id}${p.ok ? '' : ' (broken)'}`) });
        },
        (err: Error) => log('error', 'vmhub runtime failed to start; every tool call will report it', { error: err.message }),
      );
    }
    return runtime;
  };
  // The person's take-over input goes through the agent's tools (one path for input): a router of
  // its own, whose owner is the live view, without the live hooks (personInput passes no human
  // gate and records nothing: the live API records the person's step).
  const live = createLive(config, rt, createRouter(hostFor(config, rt, () => 'live-view')).personInput);
  // The agents' router: one for the hub (it keeps no per-client state: the caller comes with each call).
  const router = createRouter(hostFor(config, rt, (extra) => extra.client?.info?.name ?? 'default', live));
  const sessions = new Set<McpServer>();
  const stdioAuth = principalAuthInfo(localPrincipal(), 'stdio');
  let warmed = false;
  // Module loading is CPU work on this one thread: it starts after the answer in hand is sent.
  const warm = () => { if (!warmed) { warmed = true; setImmediate(() => void rt().catch(() => undefined)); } };

  function session(options: SessionOptions = {}): VmhubSession {
    const mcp = new McpServer({ name: 'vmhub', version: VERSION }, { instructions: INSTRUCTIONS, capabilities: { logging: {} } });
    // A 2025 client: the runtime starts once it has our `initialize` answer (or with the first
    // tool call). A 2026-07-28 client sends no initialize: the transport calls warm() (cli.ts).
    mcp.server.oninitialized = warm;
    router.register(mcp, { listTools: appToolList, ...(options.transport === 'stdio' ? { authInfo: stdioAuth } : {}) });
    registerResources(mcp, live, rt);
    registerMcpApp(mcp, rt);
    sessions.add(mcp);
    mcp.server.onclose = () => { sessions.delete(mcp); };
    return { mcp, router };
  }

  let closed = false;
  return {
    config,
    runtime: rt,
    router,
    session,
    factory: (options) => () => session(options).mcp,
    warm,
    live,
    async drain() {
      const r = await runtime?.catch(() => undefined);
      if (!r) return;
      await r.pools.stop();
      await r.leases.settled();
    },
    async close() {
      if (closed) return;
      closed = true;
      live.recordings.stop();
      await Promise.allSettled([...sessions].map((m) => m.close()));
      await live.recordings.flush();
      await (await runtime?.catch(() => undefined))?.close();
    },
  };
}

/**
 * The stdio server: one hub; serveStdio asks its factory for one instance per connection (and one
 * for a 2026-07-28 client's `server/discover` probe, discarded if the client falls back).
 */
export async function createVmhubServer(options: { config?: VmhubConfig; from?: string } = {}): Promise<VmhubServer> {
  const hub = createVmhubHub(options);
  return { router: hub.router, factory: hub.factory({ transport: 'stdio' }), warm: hub.warm, config: hub.config, runtime: hub.runtime, drain: () => hub.drain(), close: () => hub.close() };
}

/**
 * `live` undefined: no take-over gate, hand-back note or recording (the person's own input router).
 * `owner`: the default owner label of a call (the client's name, as the request declares it).
 */
function hostFor(config: VmhubConfig, rt: () => Promise<Runtime>, owner: (extra: CallExtra) => string, live?: Live): RouterHost {
  const hooks = live ? liveHooks(live) : undefined;
  return {
    settings: {
      denyTools: config.policy.deny_tools,
      toolsets: resolveToolsets(config.toolsets),
      screenshot: { format: config.screenshots.format, maxWidth: config.screenshots.max_width, maxHeight: config.screenshots.max_height, maxBytes: config.screenshots.max_bytes },
      maxFileBytes: config.files.max_bytes,
      callTimeoutSeconds: 55,
    },
    catalog: {
      listTemplates: async () => (await rt()).catalog.listTemplates(),
      capabilities: async (input, extra) => (await rt()).catalog.capabilities(input, principalOf(extra)),
      health: async () => (await rt()).catalog.health(),
    },
    // Every lease-bound call is checked against the caller's principal: another's lease is NOT_FOUND.
    leases: {
      // The lease's recording as an MCP resource (resources.ts), when recordings are kept.
      ...(live?.recordings.enabled ? { resourceLinks: (leaseId: string) => [{ uri: recordingUri(leaseId), name: 'recording', mimeType: 'application/json', description: 'this lease\'s recorded steps and frames (resources/read)' }] } : {}),
      create: async (input, extra) => {
        const r = await rt();
        const lease = await r.leases.create(input, principalOf(extra), input.owner ?? owner(extra));
        void r.reaper.ensure('lease created');
        // wait_seconds: vm_lease_status's bounded wait (progress included), after the reaper is asked for.
        return r.leases.waitCreated(lease, input.wait_seconds, extra, principalOf(extra));
      },
      status: async (input, extra) => (await rt()).leases.status(input, extra, principalOf(extra)),
      renew: async (input, extra) => {
        const r = await rt();
        const info = await r.leases.renew(input, principalOf(extra));
        // A lease renewed past its push token's hour gets a fresh token before it lapses.
        void r.github?.tokens.watch(input.lease_id);
        return info;
      },
      release: async (input, extra) => (await rt()).leases.release(input, principalOf(extra)),
      restart: async (input, extra) => {
        const r = await rt();
        return r.leases.restart(input, extra, principalOf(extra), r.sessions);
      },
      logs: async (input, extra) => (await rt()).leases.logs(input, principalOf(extra)),
      list: async (input, extra) => {
        const status = input.status === undefined ? undefined : input.status === 'live' ? LIVE_LEASE_STATES : [input.status];
        const found = await (await rt()).leases.list({ principal: principalOf(extra), owner: input.owner, status });
        return { leases: found.leases.map(leaseView), truncated: found.truncated };
      },
    },
    snapshots: { snapshot: async (input, extra) => (await rt()).snapshots.run(input, principalOf(extra)) },
    sessions: {
      bind: async (leaseId, signal, extra) => (await rt()).sessions.bind(leaseId, signal, principalOf(extra), { inFlight: true }),
      machineLost: async (leaseId) => (await rt()).leases.machineLost(leaseId),
    },
    human: hooks?.human,
    audit: {
      log: (record, extra) => {
        if (config.audit.file) appendFile(config.audit.file, JSON.stringify({ ...record, principal: principalOf(extra), owner: extra ? owner(extra) : 'default' }) + '\n', { mode: 0o600 }).catch(() => undefined);
      },
      record: hooks?.record,
    },
    // Host-held credentials, or with push: true a token minted for the repository (github/host-clone.ts).
    clone: { onHost: hostClone(config, rt) },
    screenshots: {
      save: config.screenshots.dir ? async (leaseId, shot) => {
        const file = join(config.screenshots.dir!, `vm-${leaseId.slice(0, 8)}-${new Date().toISOString().replace(/[:.]/g, '-')}.${shot.format === 'jpeg' ? 'jpg' : shot.format}`);
        await mkdir(config.screenshots.dir!, { recursive: true, mode: 0o700 });
        await writeFile(file, shot.data, { mode: 0o600 });
        return file;
      } : undefined,
      ocr: ocrHost(config.ocr),
    },
  };
}
