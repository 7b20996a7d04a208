/**
 * `vmhub-server leases export <id> --format atif|hf [--out PATH]`: a lease's recording as the
 * same file the API's `GET /api/leases/{id}/recording?format=atif|hf` answers (recording-export.ts),
 * read from the recordings folder of the store the server uses (any principal's lease: whoever
 * runs this owns that store). `--out` a file, or a folder to put the file in under its own name
 * (the default: the current folder), or `-` for stdout. An unknown lease is NOT_FOUND and writes
 * nothing.
 */
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { VmhubConfig } from '@vmhub/core/config';
import { recordingsRoot } from '../live/index.ts';
import { Recordings } from '../live/recorder.ts';
import { exportRecording, type ExportFormat } from '../live/recording-export.ts';
import type { Runtime } from '../runtime.ts';
import { leaseView } from './view.ts';

export async function exportCommand(rt: Runtime, config: VmhubConfig, id: string, format: ExportFormat, out: string | undefined): Promise<string> {
  const row = await rt.leases.get(id);
  // A reader only: it captures nothing, sweeps nothing and sees no session (steps queued by a running server are on disk once written).
  const recordings = new Recordings({ enabled: true, keepHours: 0, root: () => recordingsRoot(config, rt.store), capture: async () => undefined, session: async () => undefined });
  const file = await exportRecording(format, leaseView(row), recordings);
  if (out === '-') {
    await new Promise<void>((resolve, reject) => process.stdout.write(file.body, (err) => (err ? reject(err) : resolve())));
    return '';
  }
  const isDir = out === undefined || (await stat(out).then((s) => s.isDirectory(), () => false));
  const path = isDir ? join(out ?? '.', file.filename) : out;
  await writeFile(path, file.body);
  return `lease ${row.id}: ${file.steps} step${file.steps === 1 ? '' : 's'} exported as ${format} to ${path} (${file.body.length} bytes)\n`;
}
