/** Lease rows as clients see them. */
import type { LeaseInfo, LeaseState, Stage } from '@vmhub/core';
import type { LeaseRow } from '@vmhub/store';

/** Past its TTL or its max lifetime: a live lease in this state is expired (LeaseManager marks it so). */
export function pastDue(row: Pick<LeaseRow, 'expires_at' | 'max_expires_at'>, now = Date.now()): boolean {
  return row.expires_at < now || row.max_expires_at < now;
}

export function leaseView(row: LeaseRow): LeaseInfo {
  const info: LeaseInfo = {
    lease_id: row.id,
    status: row.status as LeaseState,
    template: row.template,
    request_id: row.request_id,
    created_at: new Date(row.created_at).toISOString(),
    expires_at: new Date(row.expires_at).toISOString(),
    max_expires_at: new Date(row.max_expires_at).toISOString(),
    stages: parseStages(row.stages),
  };
  if (row.owner) info.owner = row.owner;
  if (row.error_code) info.error = { code: row.error_code, message: row.error_message ?? '' };
  return info;
}

export function parseStages(json: string): Stage[] {
  try { return JSON.parse(json) as Stage[]; } catch { return []; }
}

/** Set a stage's status, appending it when new; earlier running stages are marked done. */
export function withStage(stages: Stage[], name: string, status: Stage['status'], detail?: string): Stage[] {
  const out = stages.map((s) => (s.status === 'running' && s.name !== name && status !== 'failed' ? { ...s, status: 'done' as const } : s));
  const i = out.findIndex((s) => s.name === name);
  const stage: Stage = detail === undefined ? { name, status } : { name, status, detail: detail.slice(0, 500) };
  if (i >= 0) out[i] = stage;
  else out.push(stage);
  return out;
}
