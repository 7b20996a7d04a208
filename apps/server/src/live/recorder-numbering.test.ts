// A lease's recording numbered by the store (recording_steps) while two server processes write
// its folder in turn: the steps a recording held before (written when the numbers were kept in
// each process) stay first, and every new step gets the next number exactly once. Two
// Recordings on one folder and one SQLite store stand for the two processes.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore } from '@vmhub/store';
import { Recordings } from './recorder.ts';

const dir = await mkdtemp(join(tmpdir(), 'vmhub-rec-numbering-'));
after(() => rm(dir, { recursive: true, force: true }));

test('numbering continues after the steps the folder held, and two processes writing in turn never repeat a number', async () => {
  const store = openStore({ path: join(dir, 'state.db') });
  after(() => store.close());
  const root = join(dir, 'recordings');
  const id = '00000000-0000-4000-8000-000000000001';
  await mkdir(join(root, id), { recursive: true });
  const before = [1, 2, 3].map((seq) => JSON.stringify({ seq, at: new Date().toISOString(), actor: 'agent', tool: 'vm_click', outcome: 'ok', duration_ms: 1, args: {} }));
  await writeFile(join(root, id, 'steps.jsonl'), before.join('\n') + '\n');
  const processes = [0, 1].map(() => new Recordings({
    enabled: true, keepHours: 1, root: async () => root,
    capture: async () => undefined, session: async () => undefined,
    number: (leaseId, n, floor) => store.takeRecordingSteps(leaseId, n, floor),
  }));
  for (let turn = 0; turn < 6; turn++) {
    const rec = processes[turn % 2]!;
    rec.human(id, 'alice', 'turn', { turn });
    await rec.flush();
  }
  const steps = await processes[0]!.steps(id);
  assert.deepEqual(steps.map((s) => s.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(steps.slice(3).map((s) => s.args['turn']), [0, 1, 2, 3, 4, 5], 'each turn once, in order');
});
