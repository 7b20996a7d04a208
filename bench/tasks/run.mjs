// Runs the desktop task suite through the built server (stdio MCP, the SDK client) on fresh
// debian-desktop leases: `ROUNDS` times over (default 2: every task twice in a row, each time on a
// fresh lease), then once more as the naive variant — the same agents with fixed sleeps instead of
// vm_wait and window polling (agent.mjs NAIVE_SLEEP_MS) — and writes per task, side by side, pass
// or fail, steps, tool calls and wall time as the `tasks` section of bench/RESULTS.md.
// Run from the repo root after `pnpm run build` and the golden (`vmhub-server golden build
// debian-desktop`):  node bench/tasks/run.mjs   (TASKS=id,id picks some; ROUNDS=n; NAIVE=0 skips it)
import { loadavg } from 'node:os';
import { runAsSection, withBenchServer } from '../lib.mjs';
import { NAIVE_SLEEP_MS } from './agent.mjs';
import { runSuite } from './suite.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 2);
const ONLY = process.env.TASKS ? process.env.TASKS.split(',') : undefined;
const NAIVE = process.env.NAIVE !== '0';

const say = (r) => console.error(`[tasks] ${r.naive ? 'naive' : `round ${r.round}`} ${r.id}: ${r.pass ? 'pass' : `FAIL ${r.error}`} (${r.steps} steps, ${r.tool_calls} calls, ${(r.wall_ms / 1000).toFixed(1)} s)`);
const s = (ms) => Math.round(ms / 100) / 10;

async function measure() {
  return withBenchServer('tasks', { instance: `bt${process.pid}`, reaper: { autostart: false } }, async ({ call }) => {
    const load = [loadavg()[0].toFixed(2)];
    const results = await runSuite(call, { rounds: ROUNDS, only: ONLY, onResult: say });
    const naive = NAIVE ? await runSuite(call, { rounds: 1, only: ONLY, naive: true, onResult: say }) : [];
    load.push(loadavg()[0].toFixed(2));
    const ids = [...new Set(results.map((r) => r.id))];
    const per_task = ids.map((id) => {
      const mine = results.filter((r) => r.id === id);
      const n = naive.find((r) => r.id === id);
      return {
        id, passed: `${mine.filter((r) => r.pass).length}/${mine.length}`, steps: mine[0].steps,
        tool_calls: mine.map((r) => r.tool_calls), wall_s: mine.map((r) => s(r.wall_ms)),
        ...(n ? { naive: { pass: n.pass, tool_calls: n.tool_calls, wall_s: s(n.wall_ms), ...(n.pass ? {} : { error: n.error }) } } : {}),
      };
    });
    const failed = [...results, ...naive].filter((r) => !r.pass).map((r) => ({ id: r.id, round: r.round, naive: r.naive ?? false, error: r.error }));
    const total = (rs) => s(rs.reduce((a, r) => a + r.wall_ms, 0));
    return {
      template: 'debian-desktop', rounds: ROUNDS, passed: results.filter((r) => r.pass).length, of: results.length,
      ...(NAIVE ? { naive_passed: naive.filter((r) => r.pass).length, naive_of: naive.length, naive_sleeps_ms: NAIVE_SLEEP_MS } : {}),
      wall_s_round_1: total(results.filter((r) => r.round === 1)), ...(NAIVE ? { wall_s_naive: total(naive) } : {}),
      load_start_end: load, per_task, ...(failed.length ? { failed } : {}),
    };
  });
}

await runAsSection(import.meta.url, {
  name: 'tasks',
  title: 'Desktop tasks: real applications finished through vmhub tools (issue 33)',
  targets: 'every task passes, twice in a row from fresh leases; per task: steps, tool calls, wall time, against the naive variant with fixed sleeps instead of vm_wait (which must pass too)',
  command: 'node bench/tasks/run.mjs',
  after: 'workspace',
}, measure);
