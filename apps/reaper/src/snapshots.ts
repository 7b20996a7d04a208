/**
 * Snapshots the reaper deletes (store table snapshots), with or without a server: (1) expired
 * ones (snapshots.keep_hours past) and deletions whose claim lapsed (a server died mid-delete),
 * each under the store's claim and through its provider's deleteSnapshot, which reads the
 * identity back and leaves one carrying another identity alone; (2) orphans — snapshots a
 * provider lists carrying this instance's snapshot prefix (`vmhub-<instance>-snap-`) with no
 * live row (a server killed between the provider's snapshot and the row), older than the orphan
 * grace. A failure costs an error count and is retried on the next pass.
 */
import type { OwnedSnapshot, Provider } from '@vmhub/core';
import { snapshotRef, type SnapshotRow } from '@vmhub/store';
import type { PassContext } from './context.ts';
import type { Tally } from './summary.ts';
import { messageOf, withTimeout } from './timeout.ts';

export async function reapSnapshots(ctx: PassContext, tally: Tally, now: number): Promise<void> {
  for (const row of await ctx.store.dueSnapshots(now)) await deleteDue(ctx, tally, row, now);
  await deleteOrphans(ctx, tally, now);
}

function deleter(ctx: PassContext, providerId: string): Provider | string {
  const provider = ctx.providers.get(providerId);
  if (provider?.deleteSnapshot) return provider;
  return ctx.unavailable.get(providerId) ?? `provider "${providerId}" is not loaded or cannot delete snapshots`;
}

async function deleteDue(ctx: PassContext, tally: Tally, row: SnapshotRow, now: number): Promise<void> {
  const { store, settings } = ctx;
  const provider = deleter(ctx, row.provider);
  if (typeof provider === 'string') return tally.error({ provider: row.provider, message: `snapshot ${row.id}: ${provider}` });
  if (!(await store.claimSnapshot(row.id, settings.reaperId, Date.now() + settings.claimMs, now))) return tally.skip('claimed_elsewhere');
  try {
    const outcome = await withTimeout(provider.deleteSnapshot!(snapshotRef(row)), settings.callTimeoutMs, `deleteSnapshot(${row.identity})`);
    await store.snapshotDeleted(row.id, settings.reaperId, outcome, row.state === 'deleting' ? 'a lapsed deletion taken over' : 'expired');
    if (outcome === 'identity_mismatch') ctx.log('warn', 'snapshot carries another identity: left alone', { snapshot: row.id, identity: row.identity });
    else tally.snapshot();
  } catch (err) {
    await store.snapshotDeleteFailed(row.id, settings.reaperId, messageOf(err)).catch(() => undefined);
    tally.error({ provider: row.provider, message: `snapshot ${row.id}: ${messageOf(err)}` });
  }
}

async function deleteOrphans(ctx: PassContext, tally: Tally, now: number): Promise<void> {
  const prefix = `${ctx.settings.identityPrefix}snap-`;
  for (const [providerId, provider] of ctx.providers) {
    if (!provider.listSnapshots || !provider.deleteSnapshot) continue;
    let listed: OwnedSnapshot[];
    try {
      listed = (await withTimeout(provider.listSnapshots(), ctx.settings.callTimeoutMs, `listSnapshots(${providerId})`)).filter((s) => s.identity.startsWith(prefix) && s.identity.length > prefix.length);
    } catch (err) {
      if (ctx.configured.has(providerId)) tally.error({ provider: providerId, message: `listSnapshots: ${messageOf(err)}` });
      continue;
    }
    if (listed.length === 0) continue;
    const live = await ctx.store.liveSnapshotIdentities(listed.map((s) => s.identity));
    for (const s of listed.filter((x) => !live.has(x.identity))) {
      if (s.created_at === undefined || now - s.created_at < ctx.settings.orphanGraceMs) { tally.skip('orphan_grace'); continue; }
      try {
        const outcome = await withTimeout(provider.deleteSnapshot(s), ctx.settings.callTimeoutMs, `deleteSnapshot(${s.identity})`);
        if (outcome === 'destroyed') {
          tally.snapshot();
          await ctx.store.appendEvent({ lease_id: null, actor: ctx.settings.reaperId, kind: 'snapshot.orphan_deleted', data: { identity: s.identity, provider: providerId } });
        }
      } catch (err) {
        tally.error({ provider: providerId, message: `orphan snapshot ${s.identity}: ${messageOf(err)}` });
      }
    }
  }
}
