/**
 * The dashboard's workspaces under /api/workspaces (docs/live-view.md): GET lists the workspaces
 * of the principals this sign-in views (Live.viewers), newest use first; POST
 * /api/workspaces/<name>/delete deletes one of them — a person's act, so only from a browser
 * sign-in (its cookie), never a bearer token an agent could hold: that answers 403
 * POLICY_DENIED. Another principal's workspace is NOT_FOUND; one a lease holds is
 * LOCK_CONTENTION naming the lease (workspaces/remove.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WorkspaceRow } from '@vmhub/store';
import { removeWorkspace } from '../workspaces/remove.ts';
import { ApiError, sendError, sendJson, type Live } from './api.ts';

const ROUTE = /^\/api\/workspaces(?:\/([a-z0-9][a-z0-9._-]{0,62})\/(delete))?\/?$/;

export function isWorkspacesApi(url: URL): boolean {
  return url.pathname === '/api/workspaces' || url.pathname.startsWith('/api/workspaces/');
}

export async function handleWorkspacesApi(req: IncomingMessage, res: ServerResponse, url: URL, principal: string, live: Live | undefined, byCookie: boolean): Promise<void> {
  try {
    const m = ROUTE.exec(url.pathname);
    if (!m || !live) throw new ApiError(404, 'NOT_FOUND', `no API route ${url.pathname}: GET /api/workspaces, POST /api/workspaces/<name>/delete`);
    const rt = await live.runtime();
    const principals = live.viewers(principal);
    if (m[1] === undefined) {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new ApiError(405, 'INVALID_REQUEST', `${req.method} is not allowed here: use GET`);
      const rows = (await Promise.all(principals.map((p) => rt.store.listWorkspaces(p)))).flat().sort((a, b) => b.used_at - a.used_at);
      return sendJson(res, 200, { workspaces: rows.map(view) });
    }
    if (req.method !== 'POST') throw new ApiError(405, 'INVALID_REQUEST', `${req.method} is not allowed here: use POST`);
    if (!byCookie) throw new ApiError(403, 'POLICY_DENIED', 'deleting a workspace is a person\'s act: sign in to the live view (/ui/login) and delete it there, or run `vmhub-server workspaces rm` on the server host; a bearer token (what an agent holds) cannot', 'The dashboard\'s Workspaces table has a Delete button.');
    let row: WorkspaceRow | undefined;
    for (const p of principals) row ??= await rt.store.getWorkspace(p, m[1]);
    if (!row) throw new ApiError(404, 'NOT_FOUND', `no workspace "${m[1]}" of yours`, 'GET /api/workspaces lists them.');
    const outcome = await removeWorkspace(rt.store, rt.registry, row, `ui:${principal}`);
    return sendJson(res, 200, { ...view(row), deleted: outcome });
  } catch (err) {
    if (!res.headersSent) sendError(res, err);
    else res.destroy();
  }
}

function view(r: WorkspaceRow): Record<string, unknown> {
  return {
    name: r.name, principal: r.principal, provider: r.provider, template: r.template, path: r.path, state: r.state,
    ...(r.holder_lease ? { holder_lease: r.holder_lease } : {}), bytes: r.bytes,
    created_at: new Date(r.created_at).toISOString(), used_at: new Date(r.used_at).toISOString(),
  };
}
