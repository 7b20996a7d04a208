/**
 * A lease's recording exported as a file: `atif` (one ATIF v1.6 JSON document, export-atif.ts) or
 * `hf` (a Hugging Face datasets folder in a tar, export-hf.ts). One function for the API's
 * `GET /api/leases/{id}/recording?format=atif|hf` and `vmhub-server leases export`, so both give
 * the same bytes for the same recording.
 */
import type { LeaseInfo } from '@vmhub/core';
import { VERSION } from '../catalog.ts';
import { atifTrajectory } from './export-atif.ts';
import { exportSteps } from './export-frames.ts';
import { hfFolder, hfTar } from './export-hf.ts';
import type { Recordings } from './recorder.ts';

export const EXPORT_FORMATS = ['atif', 'hf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportedRecording {
  body: Buffer;
  contentType: string;
  /** The file name to save it as. */
  filename: string;
  /** How many steps it holds. */
  steps: number;
}

export function isExportFormat(format: string): format is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(format);
}

/** Every step of the lease's recording, each image file read once as bytes (Recordings.steps and image). */
export async function exportRecording(format: ExportFormat, lease: LeaseInfo, recordings: Pick<Recordings, 'steps' | 'image'>): Promise<ExportedRecording> {
  const id = lease.lease_id;
  const prepared = await exportSteps(await recordings.steps(id), (name) => recordings.image(id, name));
  if (format === 'hf') return { body: hfTar(lease, prepared), contentType: 'application/x-tar', filename: `${hfFolder(lease)}.tar`, steps: prepared.length };
  const json = JSON.stringify(atifTrajectory(lease, prepared, VERSION), null, 2) + '\n';
  return { body: Buffer.from(json), contentType: 'application/json; charset=utf-8', filename: `vmhub-${id.slice(0, 8)}-recording.atif.json`, steps: prepared.length };
}
