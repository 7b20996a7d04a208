/**
 * Build a pass context from the same configuration the server reads: same instance (so the
 * same identity prefix), same store file, same provider options. Provider plugins are found by
 * core's discovery (the reaper's own provider dependencies plus config `plugins`); one that
 * fails to load is reported and the others still work.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { identityPrefix, type Provider, type ProviderPlugin } from '@vmhub/core';
import { discoverPlugins, loadConfig, type VmhubConfig } from '@vmhub/core/config';
import { defaultStatePath, stateDirOf, Store } from '@vmhub/store';
import { COORDINATIONS, type CliArgs, type Coordination } from './args.ts';
import type { PassContext } from './context.ts';
import type { Logger } from './log.ts';

export interface Setup {
  ctx: PassContext;
  config: VmhubConfig & { source: string | null };
  intervalMs: number;
  coordination: Coordination;
  close(): Promise<void>;
}

/** Throws on bad configuration (the CLI maps that to exit code 2). */
export async function setup(args: CliArgs, env: NodeJS.ProcessEnv, log: Logger, reaperId = newReaperId()): Promise<Setup> {
  const config = loadConfig({ env, ...(args.config ? { file: args.config } : {}) });
  const dbPath = args.db ?? config.db ?? defaultStatePath(env);
  const claimSeconds = args.claimSeconds ?? envNumber(env, 'VMHUB_REAPER_CLAIM_SECONDS') ?? 60;
  const prefix = identityPrefix(config.instance);
  const coordination = args.coordination ?? envCoordination(env);
  // Throws StoreConfigError (STORE_CONFIG) for a scheme it does not support; connects lazily,
  // so a PostgreSQL that is down now does not stop the reaper from starting (passes retry).
  const store = new Store({ path: dbPath });
  // The server's state directory too: a provider finds (and drops) the per-lease files it keeps there.
  const stateDir = stateDirOf(dbPath, env);

  const providers = new Map<string, Provider>();
  const unavailable = new Map<string, string>();
  const packages = await discoverPlugins({ from: import.meta.url, kinds: ['provider'], names: config.plugins });
  for (const pkg of packages) {
    if (pkg.error) {
      log('warn', 'provider package not usable', { package: pkg.package, error: pkg.error });
      const id = /provider-([a-z0-9-]+)$/.exec(pkg.package)?.[1];
      if (id && pkg.plugins.length === 0) unavailable.set(id, `${pkg.package}: ${pkg.error}`);
    }
    for (const plugin of pkg.plugins as ProviderPlugin[]) {
      if (providers.has(plugin.id)) {
        log('warn', 'two packages provide the same provider id: the first one is used', { provider: plugin.id, ignored: pkg.package });
        continue;
      }
      try {
        const providerLog: Logger = (level, msg, data) => log(level, msg, { provider: plugin.id, ...data });
        providers.set(plugin.id, plugin.create(config.providers[plugin.id] as never, { identityPrefix: prefix, log: providerLog, ...(stateDir ? { stateDir } : {}) }));
        unavailable.delete(plugin.id);
      } catch (err) {
        unavailable.set(plugin.id, (err as Error).message);
        log('warn', 'provider could not be created from its options', { provider: plugin.id, error: (err as Error).message });
      }
    }
  }
  const configured = new Set<string>([...Object.keys(config.providers), ...config.templates.map((t) => t.provider)]);
  for (const id of configured) {
    if (!providers.has(id)) log('warn', 'configured provider is not available: its leases cannot be torn down here', { provider: id, reason: unavailable.get(id) ?? 'not installed' });
  }

  // store.path, never dbPath: a PostgreSQL URL's password is masked there.
  log('info', 'reaper ready', { reaper_id: reaperId, instance: config.instance, db: store.path, store: store.kind, config: config.source, providers: [...providers.keys()], claim_seconds: claimSeconds, coordination });
  const ctx: PassContext = {
    store, providers, configured, unavailable, log,
    settings: {
      reaperId,
      identityPrefix: prefix,
      claimMs: claimSeconds * 1000,
      orphanGraceMs: config.reaper.orphan_grace_seconds * 1000,
      stuckGraceMs: config.reaper.stuck_grace_seconds * 1000,
      provisionTimeoutMs: config.leases.provision_timeout_seconds * 1000,
      callTimeoutMs: Math.max(claimSeconds * 1000, 120_000),
      concurrency: args.concurrency ?? 4,
    },
  };
  return {
    ctx, config,
    intervalMs: (args.interval ?? config.reaper.interval_seconds) * 1000,
    coordination,
    async close() {
      for (const p of providers.values()) await p.close?.().catch(() => undefined);
      await store.close();
    },
  };
}

export function newReaperId(): string {
  return `reaper:${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

function envNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name}="${raw}" must be a positive number of seconds`);
  return n;
}

function envCoordination(env: NodeJS.ProcessEnv): Coordination {
  const raw = env.VMHUB_REAPER_COORDINATION;
  if (raw === undefined || raw === '') return 'claims';
  if (!(COORDINATIONS as readonly string[]).includes(raw)) throw new ConfigError(`VMHUB_REAPER_COORDINATION="${raw}" must be one of ${COORDINATIONS.join(', ')}`);
  return raw as Coordination;
}

export class ConfigError extends Error {}
