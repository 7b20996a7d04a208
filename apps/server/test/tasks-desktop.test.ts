// The desktop task suite (bench/tasks/, issue 33) through the BUILT server on the real Docker
// engine: every task of the suite on a fresh debian-desktop lease — a scripted agent that only
// looks (vm_screenshot, vm_find_text, vm_inspect) and acts (vm_click, vm_type, vm_key, vm_drag)
// through vmhub tools, and a checker that reads the result from the machine (the saved .odt/.ods
// parsed, the page's server-side log, Firefox's prefs.js, the files on disk) — twice in a row,
// each time from fresh leases. Every task must pass both times. Needs the debian-desktop golden
// (`vmhub-server golden build debian-desktop`).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
// @ts-expect-error: the suite is plain JavaScript (bench/), shared with `node bench/tasks/run.mjs`.
import { runSuite } from '../../../bench/tasks/suite.mjs';
import { connect, machineBox, okCaller, type Session } from './harness.ts';

const box = machineBox('tasks', 'tk');
box.write({});
let s: Session | undefined;
after(async () => { await box.end(s); });

describe('desktop tasks on debian-desktop (bench/tasks)', { timeout: 3_600_000 }, () => {
  it('every task passes twice in a row, each time on a fresh lease', async () => {
    s = await connect(box);
    const call = okCaller(s);
    const results: { round: number; id: string; pass: boolean; error?: string; steps: number; tool_calls: number; wall_ms: number }[] =
      await runSuite(call, { rounds: 2, onResult: (r: { round: number; id: string; pass: boolean; error?: string; steps: number; tool_calls: number; wall_ms: number }) => console.log(`# round ${r.round} ${r.id}: ${r.pass ? 'pass' : `FAIL ${r.error}`} (${r.steps} steps, ${r.tool_calls} calls, ${(r.wall_ms / 1000).toFixed(1)} s)`) });
    assert.ok(results.length >= 24, `${results.length} task runs (12 tasks × 2)`);
    const failed = results.filter((r) => !r.pass);
    assert.deepEqual(failed, [], 'every task passed both times');
  });
});
