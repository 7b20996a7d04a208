/**
 * Composition: configuration → store → plugins → lease manager → router → McpServer.
 * Nothing here knows a hypervisor or a desktop: that lives in the plugins.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { loadConfig, type VmhubConfig } from '@vmhub/core';
import { createRouter, type Router } from '@vmhub/core/router';
import { defaultStatePath, openStore, type Store } from '@vmhub/store';
import { Bindings } from './bindings.ts';
import { Catalog, VERSION } from './catalog.ts';
import { cloneOnHost } from './clone.ts';
import { LeaseManager } from './leases/manager.ts';
import { log } from './log.ts';
import { Registry } from './registry.ts';

export const INSTRUCTIONS = [
  'vmhub gives you machines. Workflow: vm_list_templates → vm_lease_create {template} (returns at once) →',
  'vm_lease_status {lease_id, wait_seconds: 20} until status is "ready" → drive it (vm_screenshot, vm_click,',
  'vm_type, vm_key, vm_exec, files) → vm_lease_release. Coordinates are pixels of your latest screenshot.',
  'CAPABILITY_UNAVAILABLE means this VM cannot do that: pick another tool or template, do not retry.',
  'Leases expire (renew with vm_lease_renew); errors carry a hint and a retryable flag.',
].join(' ');

export interface VmhubServer {
  mcp: McpServer;
  router: Router;
  store: Store;
  registry: Registry;
  config: VmhubConfig;
  close(): Promise<void>;
}

export async function createVmhubServer(options: { config?: VmhubConfig; from?: string } = {}): Promise<VmhubServer> {
  const config = options.config ?? loadConfig();
  const store = openStore({ path: config.db ?? defaultStatePath() });
  const registry = await Registry.load(config, options.from ?? import.meta.url);
  const bindings = new Bindings(store, registry);
  const mcp = new McpServer({ name: 'vmhub', version: VERSION }, { instructions: INSTRUCTIONS, capabilities: { logging: {} } });
  let router: Router;
  const leases = new LeaseManager(store, registry, config, async (leaseId) => { router.forget(leaseId); await bindings.release(leaseId); });
  bindings.attach(leases);
  const catalog = new Catalog(registry, store, leases, bindings);
  const owner = () => mcp.server.getClientVersion()?.name ?? 'default';

  router = createRouter({
    listTemplates: () => catalog.listTemplates(),
    capabilities: (input) => catalog.capabilities(input),
    health: () => catalog.health(),
    leaseCreate: (input) => leases.create(input, input.owner ?? owner()),
    leaseStatus: (input, extra) => leases.status(input, extra),
    leaseRenew: (input) => leases.renew(input),
    leaseRelease: (input) => leases.release(input),
    bind: (leaseId, signal) => bindings.bind(leaseId, signal),
    cloneOnHost: async (input) => {
      const lease = await leases.get(input.lease_id);
      return cloneOnHost(input, config.clone, leases.template(lease.template).clone_credentials);
    },
    saveScreenshot: config.screenshots.dir ? async (leaseId, shot) => {
      const file = join(config.screenshots.dir!, `vm-${leaseId.slice(0, 8)}-${new Date().toISOString().replace(/[:.]/g, '-')}.${shot.format === 'jpeg' ? 'jpg' : shot.format}`);
      await mkdir(config.screenshots.dir!, { recursive: true });
      await writeFile(file, shot.data);
      return file;
    } : undefined,
    audit: (record) => {
      if (config.audit.file) appendFile(config.audit.file, JSON.stringify({ ...record, owner: owner() }) + '\n').catch(() => undefined);
    },
    settings: {
      denyTools: config.policy.deny_tools,
      screenshot: { format: config.screenshots.format, maxWidth: config.screenshots.max_width, maxHeight: config.screenshots.max_height, maxBytes: config.screenshots.max_bytes },
      maxFileBytes: config.files.max_bytes,
      callTimeoutSeconds: 55,
    },
  });
  router.register(mcp);
  log('info', 'vmhub server ready', { version: VERSION, db: store.path, instance: config.instance, templates: [...registry.templates.keys()], plugins: registry.plugins.map((p) => `${p.kind}:${p.id}${p.ok ? '' : ' (broken)'}`) });

  let closed = false;
  return {
    mcp, router, store, registry, config,
    async close() {
      if (closed) return;
      closed = true;
      leases.abortAll();
      await bindings.closeAll();
      await mcp.close().catch(() => undefined);
      await registry.close();
      await store.close();
    },
  };
}
