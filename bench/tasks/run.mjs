// Runs the desktop task suite through the built server (stdio MCP, the SDK client) on fresh
// debian-desktop leases, `ROUNDS` times over (default 2: every task twice in a row, each time on
// a fresh lease), and writes the per-task figures — pass or fail, steps, tool calls, wall time —
// as the `tasks` section of bench/RESULTS.md.
// Run from the repo root after `pnpm run build` and the golden (`vmhub-server golden build
// debian-desktop`):  node bench/tasks/run.mjs   (TASKS=id,id picks some; ROUNDS=n)
import { runAsSection, withBenchServer } from '../lib.mjs';
import { runSuite } from './suite.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 2);
const ONLY = process.env.TASKS ? process.env.TASKS.split(',') : undefined;

async function measure() {
  return withBenchServer('tasks', { instance: `bt${process.pid}`, reaper: { autostart: false } }, async ({ call }) => {
    const results = await runSuite(call, {
      rounds: ROUNDS, only: ONLY,
      onResult: (r) => console.error(`[tasks] round ${r.round} ${r.id}: ${r.pass ? 'pass' : `FAIL ${r.error}`} (${r.steps} steps, ${r.tool_calls} calls, ${(r.wall_ms / 1000).toFixed(1)} s)`),
    });
    const { loadavg } = await import('node:os');
    return { template: 'debian-desktop', rounds: ROUNDS, passed: results.filter((r) => r.pass).length, of: results.length, load: loadavg()[0].toFixed(2), results };
  });
}

await runAsSection(import.meta.url, {
  name: 'tasks',
  title: 'Desktop tasks: real applications finished through vmhub tools (issue 33)',
  targets: 'every task passes, twice in a row from fresh leases; per task: steps, tool calls, wall time',
  command: 'node bench/tasks/run.mjs',
  after: 'workspace',
}, measure);
