/**
 * MCP resources and the one prompt (docs/agent-tools.md, "Resources and the prompt"): a lease's
 * recording and the frames in it, for the caller's own leases only — listing and reading scoped to
 * the principal exactly as the tools are (another principal's lease reads as an unknown one).
 *
 *   vmhub://leases/{lease_id}/recording            application/json: {lease_id, steps}; each
 *                                                  step's `screenshot` is the URI of its frame
 *   vmhub://leases/{lease_id}/screenshots/{seq}    the frame of step `seq` (image/png or jpeg)
 *
 * They come from the recordings (docs/live-view.md, "Recordings"): kept recordings.keep_hours,
 * absent when recordings are off. Listed: the recordings of the principal's leases (live, and
 * ended within the list's window) and the last FRAMES_LISTED frames of each. The prompt
 * `vm_operator` teaches the working loop in a few lines.
 */
import { ResourceNotFoundError, ResourceTemplate, type McpServer, type Resource, type ServerContext } from '@modelcontextprotocol/server';
import { VmhubError } from '@vmhub/core';
import { callExtra } from '@vmhub/core/router';
import type { LeaseRow } from '@vmhub/store';
import { principalOf } from './http/principal.ts';
import type { Live } from './live/index.ts';
import { LEASE_ID } from './live/recorder.ts';
import type { Runtime } from './runtime.ts';

/** The recording's URI (the tools' results link to it). */
export const recordingUri = (leaseId: string): string => `vmhub://leases/${leaseId}/recording`;
const frameUri = (leaseId: string, seq: number): string => `vmhub://leases/${leaseId}/screenshots/${seq}`;
/** Frames listed per lease (all stay readable by URI). */
const FRAMES_LISTED = 20;
/** Leases whose recordings are listed, newest first. */
const LEASES_LISTED = 50;

export const OPERATOR_PROMPT = [
  'You drive a real machine through vmhub\'s vm_* tools. The loop:',
  '1. vm_lease_create {template} (vm_list_templates names them); then vm_lease_status {lease_id, wait_seconds: 20} until status is "ready".',
  '2. Look before you act: vm_screenshot (or vm_find_text for words, vm_inspect for an element tree).',
  '3. Act with one tool per step: vm_click / vm_type / vm_key / vm_scroll / vm_drag, or vm_exec for commands; coordinates come from your latest screenshot.',
  '4. Verify: vm_wait {for: "change" | "text" | "settle"} or another screenshot; read files back with vm_get_file. Never assume an action worked.',
  '5. Renew before expiry (vm_lease_renew) on long tasks; snapshot before something risky (vm_snapshot).',
  '6. Release when done: vm_lease_release. An error names its code and what to do next: follow its hint.',
].join('\n');

/**
 * The lease `leaseId` (its row) if `principal` holds it; MCP's resource-not-found for `uri`
 * otherwise (another principal's lease reads as an unknown one). Every resource of a lease asks
 * this first. The SDK v2 answers it -32602 with `data.uri` on every revision (the 2026-07-28
 * spec's code; SDK v1 sent -32002).
 */
export async function ownLease(rt: Runtime, leaseId: unknown, principal: string | undefined, uri: string): Promise<LeaseRow> {
  const id = String(leaseId);
  if (!LEASE_ID.test(id)) throw new ResourceNotFoundError(uri, `no lease "${id.slice(0, 64)}" of yours`);
  try {
    return await rt.leases.get(id, principal);
  } catch (err) {
    if (VmhubError.is(err) && err.code === 'NOT_FOUND') throw new ResourceNotFoundError(uri, err.message);
    throw err;
  }
}

export function registerResources(mcp: McpServer, live: Live, runtime: () => Promise<Runtime>): void {
  // The caller, as the tools see it (CallExtra: HTTP's bearer principal, else the local user).
  const principal = (ctx: ServerContext): string => principalOf(callExtra(mcp, ctx));
  const own = async (uri: URL, leaseId: unknown, ctx: ServerContext): Promise<string> => (await ownLease(await runtime(), leaseId, principal(ctx), uri.href)).id;

  mcp.registerResource('recording', new ResourceTemplate('vmhub://leases/{lease_id}/recording', {
    list: async (ctx) => {
      const leases = (await (await runtime()).leases.list({ principal: principal(ctx) }, LEASES_LISTED)).leases;
      const resources: Resource[] = [];
      for (const lease of leases) {
        const steps = await live.recordings.steps(lease.id);
        if (steps.length === 0) continue;
        resources.push({ uri: recordingUri(lease.id), name: `recording of lease ${lease.id.slice(0, 8)}`, mimeType: 'application/json', description: `${steps.length} steps on ${lease.template}` });
        for (const s of steps.filter((x) => x.screenshot).slice(-FRAMES_LISTED)) {
          resources.push({ uri: frameUri(lease.id, s.seq), name: `lease ${lease.id.slice(0, 8)} step ${s.seq} (${s.tool})`, mimeType: s.screenshot!.endsWith('.jpg') ? 'image/jpeg' : 'image/png' });
        }
      }
      return { resources };
    },
  }), { title: 'A lease\'s recording', description: 'The steps of one of your leases (tool calls, a person\'s take-over), each frame a vmhub://leases/{id}/screenshots/{seq} resource.', mimeType: 'application/json' }, async (uri, vars, ctx) => {
    const id = await own(uri, vars.lease_id, ctx);
    const steps = (await live.recordings.steps(id)).map((s) => (s.screenshot ? { ...s, screenshot: frameUri(id, s.seq) } : s));
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ lease_id: id, steps }) }] };
  });

  mcp.registerResource('screenshot', new ResourceTemplate('vmhub://leases/{lease_id}/screenshots/{seq}', { list: undefined }), { title: 'A frame of a lease\'s recording', description: 'The screen after step {seq} of one of your leases.' }, async (uri, vars, ctx) => {
    const id = await own(uri, vars.lease_id, ctx);
    const seq = Number(vars.seq);
    const frame = Number.isInteger(seq) && seq > 0 ? await live.recordings.frame(id, seq) : undefined;
    if (!frame) throw new ResourceNotFoundError(uri.href, `lease ${id} has no frame at step ${String(vars.seq).slice(0, 16)}`);
    return { contents: [{ uri: uri.href, mimeType: frame.mime, blob: frame.data.toString('base64') }] };
  });

  mcp.registerPrompt('vm_operator', { title: 'Operate a vmhub machine', description: 'The working loop for an agent on a vmhub machine: lease, wait, look, act, verify, release.' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: OPERATOR_PROMPT } }],
  }));
}

