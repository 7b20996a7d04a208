/**
 * vm_lease_create {snapshot_id, count}: `count` (1–8) new leases whose machines start from the
 * caller's snapshot (CreateRequest.from_snapshot), each a lease like any other (own identity,
 * expiry, reaping). Idempotent like every create: the leases are made under request_id,
 * request_id#2 … request_id#count (an agent's request_id cannot hold '#'), so a retry finds each
 * one. The quota is checked for the forks still to make before any is made: a fork either fits or
 * changes nothing. The answer is the first lease, with `lease_ids` naming all of them in order.
 */
import { randomUUID } from 'node:crypto';
import { LIVE_LEASE_STATES, VmhubError, type LeaseInfo, type TemplateConfig, type ToolInput } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';
import type { SnapshotRow, Store } from '@vmhub/store';
import type { Registry } from '../registry.ts';
import { ownSnapshot } from '../snapshots/own.ts';
import { assertSnapshots } from '../snapshots/support.ts';

/** What a fork needs of the lease manager. */
export interface ForkHost {
  store: Store;
  registry: Registry;
  config: VmhubConfig;
  template(id: string): TemplateConfig;
  createOne(request: { templateId: string; requestId: string; principal: string; owner: string; ttlSeconds?: number; from: SnapshotRow }): Promise<LeaseInfo>;
}

export async function fork(host: ForkHost, input: ToolInput<'vm_lease_create'>, principal: string, owner: string): Promise<LeaseInfo & { lease_ids: string[] }> {
  const snapshot = await ownSnapshot(host.store, input.snapshot_id!, principal);
  const template = host.template(snapshot.template);
  assertSnapshots(host.registry.providers.get(template.provider), template, 'vm_lease_create {snapshot_id}');
  const base = input.request_id ?? randomUUID();
  const requestIds = Array.from({ length: input.count ?? 1 }, (_, i) => (i === 0 ? base : `${base}#${i + 1}`));
  const existing = await Promise.all(requestIds.map((id) => host.store.getLeaseByRequest(id, principal)));
  const fresh = existing.filter((e) => !e).length;
  if (fresh > 0) {
    const limits = host.config.leases;
    const live = await host.store.countLeases({ status: LIVE_LEASE_STATES, principal });
    if (live + fresh > limits.max_per_owner) throw new VmhubError('QUOTA_EXCEEDED', `principal "${principal}" holds ${live} live leases; ${fresh} more would pass leases.max_per_owner (${limits.max_per_owner}); no fork was made`);
    const total = await host.store.countLeases({ status: LIVE_LEASE_STATES });
    if (total + fresh > limits.max_total) throw new VmhubError('HOST_CAPACITY', `this vmhub instance runs ${total} live leases; ${fresh} more would pass leases.max_total (${limits.max_total}); no fork was made`);
  }
  const leases: LeaseInfo[] = [];
  for (const requestId of requestIds) leases.push(await host.createOne({ templateId: snapshot.template, requestId, principal, owner, ttlSeconds: input.ttl_seconds, from: snapshot }));
  return { ...leases[0]!, lease_ids: leases.map((l) => l.lease_id) };
}
