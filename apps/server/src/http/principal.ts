/**
 * The authenticated principal of a request: who quotas and audit lines should count, as opposed
 * to the `owner` an agent writes in its arguments (a label it chooses). It travels as the SDK's
 * per-request `authInfo` (the handler context's `ctx.http.authInfo`, which the router hands on as
 * CallExtra.authInfo):
 *   HTTP  — the principal of the bearer token (`http.tokens[].principal`, or "default" for
 *           $VMHUB_HTTP_TOKEN; "anonymous" under the loopback no-auth opt-out);
 *   stdio — the local OS user running the server (the MCP client that spawned it runs as them).
 * The token itself never travels with it.
 */
import { userInfo } from 'node:os';
import type { AuthInfo } from '@modelcontextprotocol/server';

export const ANONYMOUS_PRINCIPAL = 'anonymous';

export type PrincipalTransport = 'http' | 'stdio';

/**
 * The SDK auth info of a request: HTTP sets it on the Node request (`req.auth`), which the SDK's
 * transports pass on; on stdio, serveStdio passes no per-message extra, so the server gives it to
 * the router itself (RegisterOptions.authInfo).
 */
export function principalAuthInfo(principal: string, transport: PrincipalTransport): AuthInfo {
  return { token: '', clientId: principal, scopes: [], extra: { principal, transport } };
}

/**
 * The principal of a tool call, from its handler's `extra`. Without one (an embedder's own
 * transport, in-memory tests) it is the local OS user, as on stdio.
 */
export function principalOf(extra: { authInfo?: AuthInfo } | undefined): string {
  const p = extra?.authInfo?.extra?.principal;
  return typeof p === 'string' && p.length > 0 ? p : localPrincipal();
}

let local: string | undefined;

/** The OS user running this process (`uid:<n>` when it has no passwd entry, as in some containers). */
export function localPrincipal(): string {
  if (local === undefined) {
    try {
      local = userInfo().username || `uid:${process.getuid?.() ?? 'unknown'}`;
    } catch {
      local = `uid:${process.getuid?.() ?? 'unknown'}`;
    }
  }
  return local;
}
