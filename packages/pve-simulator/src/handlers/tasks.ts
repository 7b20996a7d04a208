/** Task endpoints: status, log, list, stop. Tokens see their own tasks; others need Sys.Audit on the node. */
import type { HandlerContext } from '../handler.ts';
import { WithEnvelope, bool } from '../handler.ts';
import { PveHttpError, paramError } from '../pve-error.ts';
import { hasPrivs, requirePrivs } from '../auth.ts';
import type { SimTask } from '../model.ts';

const UPID_RE = /^UPID:([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$/;

function taskFor({ cluster, caller, params }: HandlerContext, modify: boolean): SimTask {
  const upid: string = params.upid;
  const m = UPID_RE.exec(upid);
  if (!m) throw paramError({ upid: 'unable to parse worker upid' });
  const task = cluster.findTask(upid);
  if (!task || m[1] !== params.node) throw new PveHttpError(400, 'no such task');
  const own = task.user === caller.tokenId || task.user === caller.user;
  if (!own) requirePrivs(cluster, caller, `/nodes/${params.node}`, [modify ? 'Sys.Modify' : 'Sys.Audit']);
  return task;
}

function taskSummary(t: SimTask): Record<string, unknown> {
  const tokenized = t.user.includes('!');
  return {
    upid: t.upid,
    node: t.node,
    pid: t.pid,
    pstart: t.pstart,
    starttime: t.starttime,
    type: t.type,
    id: t.id,
    user: tokenized ? (t.user.split('!')[0] ?? t.user) : t.user,
    ...(tokenized ? { tokenid: t.user.split('!')[1] } : {}),
  };
}

export function taskStatus(ctx: HandlerContext): unknown {
  const t = taskFor(ctx, false);
  return { ...taskSummary(t), status: t.status, ...(t.status === 'stopped' ? { exitstatus: t.exitstatus } : {}) };
}

export function taskLog(ctx: HandlerContext): unknown {
  const t = taskFor(ctx, false);
  const lines = t.log.length > 0 ? t.log : ['no content'];
  const start: number = ctx.params.start ?? 0;
  const limit: number = ctx.params.limit ?? 50;
  const all = lines.map((text, i) => ({ n: i + 1, t: text }));
  const page = bool(ctx.params.download) || limit === 0 ? all.slice(start) : all.slice(start, start + limit);
  return new WithEnvelope(page, { total: lines.length });
}

export function stopTask(ctx: HandlerContext): null {
  const t = taskFor(ctx, true);
  ctx.cluster.completeTask(t, 'interrupted by signal');
  return null;
}

export function listTasks({ cluster, caller, params }: HandlerContext): unknown[] {
  const audit = hasPrivs(cluster, caller, `/nodes/${params.node}`, ['Sys.Audit'], false);
  const source: string = params.source ?? 'archive';
  let list = cluster.tasks.filter((t) => t.node === params.node && (audit || t.user === caller.tokenId));
  if (source === 'archive') list = list.filter((t) => t.status === 'stopped');
  if (source === 'active') list = list.filter((t) => t.status === 'running');
  if (params.vmid !== undefined) list = list.filter((t) => t.id === String(params.vmid));
  if (params.typefilter !== undefined) list = list.filter((t) => t.type === params.typefilter);
  if (bool(params.errors)) list = list.filter((t) => t.exitstatus !== undefined && t.exitstatus !== 'OK');
  list = [...list].reverse().slice(params.start ?? 0, (params.start ?? 0) + (params.limit ?? 50));
  return list.map((t) => ({
    ...taskSummary(t),
    ...(t.status === 'stopped' ? { status: t.exitstatus, endtime: t.endtime } : {}),
  }));
}
