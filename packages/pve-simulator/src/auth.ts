/**
 * API token authentication and PVE's permission model: effective privileges per ACL path (a
 * deeper ACL replaces what propagated from above; a VM's pool ACL applies to the VM), and the
 * schema's `permissions.check` expressions evaluated the way RPCEnvironment does, with its
 * `Permission check failed (<path>, <priv>)` messages.
 */
import { PveHttpError, permError } from './pve-error.ts';
import type { Cluster } from './cluster.ts';
import { roles } from './privileges.ts';
import type { SimTokenConfig } from './model.ts';

export interface Caller {
  tokenId: string;
  user: string;
  token: SimTokenConfig;
}

/** Parses `PVEAPIToken=USER@REALM!TOKENID=SECRET` (a space may replace the first `=`). */
export function authenticate(cluster: Cluster, header: string | undefined): Caller {
  if (!header) throw new PveHttpError(401, 'No ticket');
  const m = /^PVEAPIToken[= ]([^=\s]+)=(.+)$/.exec(header.trim());
  if (!m) throw new PveHttpError(401, 'No ticket');
  let tokenId: string;
  let secret: string;
  try {
    tokenId = decodeURIComponent(m[1] ?? '');
    secret = decodeURIComponent(m[2] ?? '');
  } catch {
    throw new PveHttpError(401, 'Authentication failed!');
  }
  const token = cluster.tokens.get(tokenId);
  const expired = token?.expire !== undefined && token.expire > 0 && token.expire < Date.now() / 1000;
  if (!token || token.enabled === false || expired || token.secret !== secret) throw new PveHttpError(401, 'Authentication failed!');
  return { tokenId, user: cluster.tokenUser(tokenId), token };
}

/** Effective privileges at `path`: privilege -> propagate flag. */
export function privilegesAt(cluster: Cluster, token: SimTokenConfig, path: string): Map<string, boolean> {
  const roleMap = roles(cluster.mode);
  const norm = normalizePath(path);
  const entriesAt = (p: string, exact: boolean): Map<string, boolean> | undefined => {
    const hits = token.acl.filter((a) => normalizePath(a.path) === p && (exact || a.propagate !== false));
    if (hits.length === 0) return undefined;
    const out = new Map<string, boolean>();
    for (const a of hits) {
      const privs = [...(a.privs ?? []), ...(a.roles ?? []).flatMap((r) => roleMap[r] ?? [])];
      for (const p2 of privs) out.set(p2, (out.get(p2) ?? false) || a.propagate !== false);
    }
    return out;
  };
  const parts = norm === '/' ? [] : norm.slice(1).split('/');
  let current = new Map<string, boolean>();
  const prefixes = ['/', ...parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`)];
  for (const [i, p] of prefixes.entries()) {
    const exact = i === prefixes.length - 1;
    if (exact) {
      const vmid = /^\/vms\/(\d+)$/.exec(p)?.[1];
      const pool = vmid ? cluster.vms.get(Number(vmid))?.pool : undefined;
      if (pool) current = replaceIf(current, privilegesAt(cluster, token, `/pool/${pool}`), true);
    }
    current = replaceIf(current, entriesAt(p, exact), false);
  }
  return current;
}

function replaceIf(cur: Map<string, boolean>, next: Map<string, boolean> | undefined, onlyIfNonEmpty: boolean): Map<string, boolean> {
  if (!next || (onlyIfNonEmpty && next.size === 0)) return cur;
  return next;
}

export function normalizePath(p: string): string {
  const s = `/${p}`.replace(/\/+/g, '/').replace(/\/$/, '');
  return s === '' ? '/' : s;
}

export function hasPrivs(cluster: Cluster, caller: Caller, path: string, privs: string[], any: boolean): boolean {
  const have = privilegesAt(cluster, caller.token, path);
  return any ? privs.some((p) => have.has(p)) : privs.every((p) => have.has(p));
}

/** check_full: throws 403 naming the path and the (first missing, or any-of) privilege. */
export function requirePrivs(cluster: Cluster, caller: Caller, path: string, privs: string[], any = false): void {
  const have = privilegesAt(cluster, caller.token, normalizePath(path));
  if (any) {
    if (!privs.some((p) => have.has(p))) throw permError(`${normalizePath(path)}, ${privs.join('|')}`);
    return;
  }
  for (const p of privs) if (!have.has(p)) throw permError(`${normalizePath(path)}, ${p}`);
}

/** Evaluates a schema `permissions` object for the caller; throws the 403 PVE would. */
export function checkSchemaPermissions(
  cluster: Cluster,
  caller: Caller,
  perms: { check?: unknown[]; user?: string } | undefined,
  params: Record<string, unknown>,
): void {
  if (!perms) {
    if (caller.user === 'root@pam') return;
    throw permError('user != root@pam');
  }
  if (perms.user === 'all' || perms.user === 'world') return;
  if (perms.check) {
    evalCheck(cluster, caller, perms.check, params, false);
    return;
  }
  throw permError();
}

function evalCheck(cluster: Cluster, caller: Caller, check: unknown[], params: Record<string, unknown>, noerr: boolean): boolean {
  const [test, ...rest] = check;
  if (test === 'and') {
    for (const sub of rest) if (!evalCheck(cluster, caller, sub as unknown[], params, noerr)) return false;
    return true;
  }
  if (test === 'or') {
    for (const sub of rest) if (evalCheck(cluster, caller, sub as unknown[], params, true)) return true;
    if (noerr) return false;
    throw permError();
  }
  if (test === 'perm' || test === 'perm-modify') {
    const [tmpl, privs, ...optList] = rest as [string, string[], ...unknown[]];
    const opts: Record<string, unknown> = {};
    for (let i = 0; i + 1 < optList.length; i += 2) opts[String(optList[i])] = optList[i + 1];
    const req = opts.require_param as string | undefined;
    if (req && params[req] === undefined) {
      if (noerr) return false;
      throw permError();
    }
    const p = tmpl.replace(/\{(\w+)\}/g, (_, k: string) => String(params[k] ?? ''));
    if (noerr) return hasPrivs(cluster, caller, normalizePath(p), privs, Boolean(opts.any));
    requirePrivs(cluster, caller, p, privs, Boolean(opts.any));
    return true;
  }
  if (test === 'userid-param' || test === 'userid-group') {
    // user-management endpoints: a token may act on itself only
    if (params.userid === undefined || params.userid === caller.user || params.userid === caller.tokenId) return true;
    if (hasPrivs(cluster, caller, '/access', ['User.Modify'], false)) return true;
    if (noerr) return false;
    throw permError();
  }
  return true;
}
