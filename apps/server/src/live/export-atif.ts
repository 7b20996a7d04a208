/**
 * A lease's recording as one ATIF trajectory (Agent Trajectory Interchange Format, RFC 0001 of
 * laude-institute/harbor, v1.6: images as content parts), one JSON document that stands alone:
 * images are carried inline, as data URLs in `source.path`.
 *
 * The mapping (docs/live-view.md, "Exports"): `session_id` is the lease id; `agent` is vmhub, the
 * recorder (the MCP client that acted is not known to it beyond its principal). An agent step is
 * an ATIF `agent` step with one tool call (`function_name` the tool, `arguments` as redacted in
 * the recording) and its observation (the result's JSON as text, then the frame after it); a
 * person's step is a `user` step whose message says what the person did (then the frame after
 * it); the recorder's own notes are `system` steps. What ATIF has no field for (outcome, error
 * code, duration, principal, the hand-back note, the step the frame before came from) is in the
 * step's `extra.vmhub`.
 */
import type { LeaseInfo } from '@vmhub/core';
import type { ExportStep, Frame } from './export-frames.ts';

export const ATIF_VERSION = 'ATIF-v1.6';

type Part = { type: 'text'; text: string } | { type: 'image'; source: { media_type: Frame['media_type']; path: string } };

export function atifTrajectory(lease: LeaseInfo, steps: readonly ExportStep[], version: string): Record<string, unknown> {
  const firstShown = new Map<Frame, number>();
  // Text alone, or text then the frame (ATIF v1.6 content parts); each frame's data URL made once.
  const urls = new Map<Frame, string>();
  const withFrame = (text: string, frame: Frame | undefined): string | Part[] => {
    if (!frame) return text;
    let url = urls.get(frame);
    if (url === undefined) urls.set(frame, url = `data:${frame.media_type};base64,${frame.data.toString('base64')}`);
    return [{ type: 'text', text }, { type: 'image', source: { media_type: frame.media_type, path: url } }];
  };
  const atif = steps.map(({ step: s, before, after }, i) => {
    const stepId = i + 1;
    if (after && !firstShown.has(after)) firstShown.set(after, stepId);
    const vmhub = {
      seq: s.seq, actor: s.actor === 'human' ? 'person' : 'agent', ...(s.principal ? { principal: s.principal } : {}), tool: s.tool,
      outcome: s.outcome, ...(s.code ? { code: s.code } : {}), duration_ms: s.duration_ms, ...(s.note !== undefined ? { note: s.note } : {}),
      ...(before ? { before_frame_step_id: firstShown.get(before) } : {}),
    };
    const base = { step_id: stepId, timestamp: s.at, extra: { vmhub } };
    if (s.tool === 'recording') return { ...base, source: 'system', message: s.note ?? '' };
    if (s.actor === 'human') {
      const text = `the person: ${s.tool}${Object.keys(s.args).length ? ` ${JSON.stringify(s.args)}` : ''}${s.outcome === 'error' ? ` (failed${s.code ? `: ${s.code}` : ''})` : ''}${s.note !== undefined ? ` — note: ${s.note}` : ''}`;
      return { ...base, source: 'user', message: withFrame(text, after) };
    }
    const call = `call-${s.seq}`;
    const result = JSON.stringify(s.result ?? { outcome: s.outcome });
    return {
      ...base, source: 'agent', message: '',
      tool_calls: [{ tool_call_id: call, function_name: s.tool, arguments: s.args }],
      observation: { results: [{ source_call_id: call, content: withFrame(result, after) }] },
    };
  });
  return {
    schema_version: ATIF_VERSION,
    session_id: lease.lease_id,
    agent: { name: 'vmhub', version, extra: { role: 'recorder: each step is a tool call an MCP client made on the lease, or a turn of a person who took control of it' } },
    notes: `vmhub recording of lease ${lease.lease_id} (template ${lease.template}). Arguments and results are redacted as the recording keeps them. Images are data URLs; a step's frame before is the image of extra.vmhub.before_frame_step_id.`,
    steps: atif,
    final_metrics: { total_steps: atif.length },
    extra: { vmhub: { lease_id: lease.lease_id, template: lease.template, ...(lease.owner ? { owner: lease.owner } : {}), status: lease.status, created_at: lease.created_at } },
  };
}
