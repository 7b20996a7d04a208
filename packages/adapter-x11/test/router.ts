/**
 * Core's real tool router over one x11 session, wired as the server wires it (minus MCP): what
 * the adapter no longer checks itself — coordinates inside the screen, guest paths resolved
 * against the home with traversal refused, input against the tool schemas — is checked there
 * before the session is called. Tests of those rules go through it so they keep checking the
 * whole path an agent's call takes.
 */
import { VmhubError, type Adapter, type AdapterContext, type OpenSession } from '@vmhub/core';
import { createRouter, type CallExtra, type RouterHost, type ScreenState } from '@vmhub/core/router';

/** `call(tool, args)` → the structured result; an error result is thrown as its VmhubError. */
export function routerOn(adapter: Adapter, session: OpenSession, ctx: AdapterContext): (tool: string, args: Record<string, unknown>) => Promise<Record<string, unknown>> {
  // The lease's screen mapping, as the server's lease session keeps it.
  const screen: ScreenState = {};
  const host: RouterHost = {
    sessions: {
      async bind(leaseId) {
        if (leaseId !== ctx.lease_id) throw new VmhubError('NOT_FOUND', `no lease ${leaseId}`);
        return { lease_id: ctx.lease_id, expires_at: new Date(Date.now() + 3_600_000).toISOString(), template: ctx.template, adapter, session, screen, context: ctx };
      },
    },
    settings: { denyTools: [], screenshot: { format: 'png', maxWidth: 1280, maxHeight: 800, maxBytes: 4_000_000 }, maxFileBytes: 8_000_000, callTimeoutSeconds: 60 },
  };
  const router = createRouter(host);
  return async (tool, args) => {
    const r = await router.call(tool, { lease_id: ctx.lease_id, ...args }, { signal: ctx.signal } as CallExtra);
    const out = (r.structuredContent ?? {}) as Record<string, unknown>;
    if (r.isError) throw new VmhubError(out.code as never, String(out.message));
    return out;
  };
}
