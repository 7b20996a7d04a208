/**
 * Spike: the fake host behind vmhub's router (one lease, "lease-1", whose screen is a PNG made with
 * sharp; a vm_lease_status that waits with progress as apps/server's leases/wait.ts does), shared
 * by the SDK v2 server (router-serve.ts) and the SDK v1 baseline (router-serve-v1.ts).
 */
import { appendFileSync } from 'node:fs';
import sharp from 'sharp';
import type { CallExtra, RouterHost } from '../../../packages/core/src/router/index.ts';
import type { Adapter, OpenSession } from '../../../packages/core/src/adapter.ts';

const principalOf = (extra: CallExtra) => (extra.authInfo?.extra?.principal as string | undefined) ?? 'local';
const log = (e: Record<string, unknown>) => { if (process.env.SPIKE_LOG) appendFileSync(process.env.SPIKE_LOG, JSON.stringify({ pid: process.pid, ...e }) + '\n'); };

const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer();
const session = { lease_id: 'lease-1', disposed: false, dispose: async () => undefined, screenshot: async () => ({ data: png, format: 'png', width: 64, height: 48 }) } as unknown as OpenSession;
const adapter = { kind: 'adapter', id: 'fake', version: '0.0.0', contractVersion: 2, capabilities: ['screenshot'], verbs: [], open: async () => session } as unknown as Adapter;
const leaseInfo = (status: string, extra: CallExtra) => ({
  lease_id: 'lease-1', status, template: 'fake-template', expires_at: new Date(Date.now() + 3600_000).toISOString(), stages: [],
  request_id: 'r1', created_at: new Date().toISOString(), max_expires_at: new Date(Date.now() + 7200_000).toISOString(),
  owner: `${principalOf(extra)} via ${extra.client?.info?.name ?? 'unknown client'} (${extra.client?.protocolVersion ?? '?'})`,
});

export const host: RouterHost = {
  settings: { denyTools: [], screenshot: { format: 'png', maxWidth: 1280, maxHeight: 800, maxBytes: 800_000 }, maxFileBytes: 1 << 20, callTimeoutSeconds: 30 },
  sessions: {
    async bind(leaseId, signal) {
      return { lease_id: leaseId, expires_at: new Date(Date.now() + 3600_000).toISOString(), template: { id: 'fake-template', adapter: 'fake' } as never, adapter, session, screen: {}, context: { lease_id: leaseId, signal } as never };
    },
  },
  catalog: {
    listTemplates: async () => ({ templates: [] }) as never,
    capabilities: async () => ({}) as never,
    health: async () => ({ ok: true }) as never,
  },
  leases: {
    // As apps/server/src/leases/wait.ts: progress on the request's token while waiting, until the wait ends or the call is cancelled.
    status: async (input, extra) => {
      const token = extra._meta?.progressToken;
      const until = Date.now() + (input.wait_seconds ?? 0) * 1000;
      let n = 0;
      while (Date.now() < until && !extra.signal.aborted) {
        await new Promise((r) => setTimeout(r, 100));
        if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++n, message: 'starting' } }).catch(() => undefined);
      }
      log({ event: extra.signal.aborted ? 'status-aborted' : 'status-done', beats: n });
      return leaseInfo('ready', extra) as never;
    },
    create: async () => { throw new Error('not in the spike'); },
    renew: async () => { throw new Error('not in the spike'); },
    release: async () => { throw new Error('not in the spike'); },
    list: async () => ({ leases: [], truncated: false }) as never,
    restart: async () => { throw new Error('not in the spike'); },
    logs: async () => ({}) as never,
  },
  audit: { log: (record, extra) => log({ event: 'audit', ...record, principal: principalOf(extra), client: extra.client?.info?.name ?? null }) },
};
