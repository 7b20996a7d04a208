/**
 * A lease's recording as a Hugging Face datasets folder, packed in one uncompressed tar (the
 * frames are PNGs already): `vmhub-<id8>-recording-hf/` holding `README.md` (a dataset card whose
 * YAML names `steps.jsonl` as the train split), `steps.jsonl` (one row per step) and `images/`
 * (each distinct frame once). `load_dataset("json", data_files="steps.jsonl")` or
 * `load_dataset("<folder>")` reads it; the frame columns are paths relative to the folder.
 *
 * Every row has every column (null where a step has no value), so a reader infers one schema;
 * `arguments` and `result` are JSON text for the same reason (their shape differs per tool).
 * The archive is the same bytes for the same recording: entries in a fixed order, every mtime the
 * lease's creation time.
 */
import type { LeaseInfo } from '@vmhub/core';
import { writeTar, type TarEntry } from '@vmhub/core';
import { framesOf, type ExportStep } from './export-frames.ts';

export interface HfRow {
  lease_id: string;
  step: number;
  started_at: string;
  duration_ms: number;
  actor: 'agent' | 'person';
  principal: string | null;
  action: string;
  /** JSON text of the arguments, redacted as in the recording. */
  arguments: string;
  outcome: 'ok' | 'error';
  error_code: string | null;
  /** JSON text of what the call answered (redacted, bounded), or null. */
  result: string | null;
  note: string | null;
  before_frame: string | null;
  before_width: number | null;
  before_height: number | null;
  after_frame: string | null;
  after_width: number | null;
  after_height: number | null;
}

export function hfRows(lease: LeaseInfo, steps: readonly ExportStep[]): HfRow[] {
  return steps.map(({ step: s, before, after }) => ({
    lease_id: lease.lease_id, step: s.seq, started_at: s.at, duration_ms: s.duration_ms,
    actor: s.actor === 'human' ? 'person' : 'agent', principal: s.principal ?? null, action: s.tool,
    arguments: JSON.stringify(s.args), outcome: s.outcome, error_code: s.code ?? null,
    result: s.result ? JSON.stringify(s.result) : null, note: s.note ?? null,
    before_frame: before?.path ?? null, before_width: before?.width ?? null, before_height: before?.height ?? null,
    after_frame: after?.path ?? null, after_width: after?.width ?? null, after_height: after?.height ?? null,
  }));
}

/** The folder's name inside the archive. */
export function hfFolder(lease: LeaseInfo): string {
  return `vmhub-${lease.lease_id.slice(0, 8)}-recording-hf`;
}

export function hfTar(lease: LeaseInfo, steps: readonly ExportStep[]): Buffer {
  const dir = hfFolder(lease);
  const mtime = Math.floor(Date.parse(lease.created_at) / 1000) || 0;
  const rows = hfRows(lease, steps);
  const entries: TarEntry[] = [
    { name: dir, type: 'dir', mode: 0o755, mtime },
    { name: `${dir}/README.md`, data: Buffer.from(card(lease, rows.length)), mode: 0o644, mtime },
    { name: `${dir}/steps.jsonl`, data: Buffer.from(rows.map((r) => JSON.stringify(r) + '\n').join('')), mode: 0o644, mtime },
    { name: `${dir}/images`, type: 'dir', mode: 0o755, mtime },
    ...framesOf(steps).map((f) => ({ name: `${dir}/${f.path}`, data: f.data, mode: 0o644, mtime })),
  ];
  return writeTar(entries);
}

function card(lease: LeaseInfo, rows: number): string {
  return `---
configs:
- config_name: default
  data_files:
  - split: train
    path: steps.jsonl
---
# vmhub recording of lease ${lease.lease_id}

Template \`${lease.template}\`, created ${lease.created_at}, ${rows} steps. One row per step:
\`step\` (the recording's seq), \`started_at\` and \`duration_ms\`, \`actor\` (\`agent\` or \`person\`)
and \`principal\`, \`action\` (the tool, or the person's \`takeover\`, \`input\`, \`handback\`,
\`clipboard\`), \`arguments\` and \`result\` (JSON text, redacted as vmhub's recording keeps them),
\`outcome\` and \`error_code\`, \`note\`, and the frames: \`before_frame\` (the screen as last seen
before the step) and \`after_frame\` (the screenshot the agent got, or the frame captured after an
input), paths relative to this folder with their \`_width\` and \`_height\` in pixels.
`;
}
