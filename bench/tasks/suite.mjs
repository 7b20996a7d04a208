// The desktop task suite (issue 33): tasks in the style of OSWorld, each run on a fresh lease of
// the golden (debian-desktop by default). A task is a module under tasks/ exporting
//   { id, title, setup(m), agent(a, m), check(m) }
// setup puts files into the lease (m: machine(), vm_exec/vm_put_file); agent is the scripted agent,
// which uses only the vmhub tools an agent has (a: Agent — look, then act; every call counted);
// check reads the result from the machine (the saved file parsed, a page's server-side log, the
// browser's profile) and throws when the task was not done. runSuite reports per task: pass or
// fail (with the error), steps (actions), tool calls, wall time. With VMHUB_TASKS_SHOTS=<dir>, a
// failed task's last screen is saved there.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, machine } from './agent.mjs';

const TASKS_DIR = fileURLToPath(new URL('./tasks/', import.meta.url));

/** Every task module, in file-name order. */
export async function loadTasks(only) {
  const files = readdirSync(TASKS_DIR).filter((f) => f.endsWith('.mjs')).sort();
  const tasks = [];
  for (const f of files) {
    const t = (await import(new URL(`./tasks/${f}`, import.meta.url).href)).default;
    if (!only || only.includes(t.id)) tasks.push(t);
  }
  return tasks;
}

/** Lease `template` and wait until ready (the lease id is handed to `created` first). */
async function freshLease(call, template, created) {
  const lease = (await call('vm_lease_create', { template, ttl_seconds: 900 })).structuredContent.lease_id;
  created(lease);
  let status = 'provisioning';
  while (['provisioning', 'starting'].includes(status)) status = (await call('vm_lease_status', { lease_id: lease, wait_seconds: 20 })).structuredContent.status;
  if (status !== 'ready') throw new Error(`lease ${lease} ${status}`);
  return lease;
}

/** The screen of a failed task, kept where VMHUB_TASKS_SHOTS says (best effort). */
async function lastScreen(call, lease, file) {
  try {
    const r = await call('vm_screenshot', { lease_id: lease, max_width: 1280 });
    const img = r.content.find((c) => c.type === 'image');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, Buffer.from(img.data, 'base64'));
  } catch { /* the lease may be gone */ }
}

/** One task on a fresh lease, released after: its figures. */
export async function runTask(call, task, { template = 'debian-desktop', naive = false } = {}) {
  const leases = [];
  const started = performance.now();
  let agent;
  try {
    const lease = await freshLease(call, template, (id) => leases.push(id));
    const m = machine(call, lease);
    await task.setup?.(m);
    agent = new Agent(call, lease, { naive });
    const t0 = performance.now();
    await task.agent(agent, m);
    const agentMs = performance.now() - t0;
    await task.check(m);
    return { id: task.id, pass: true, steps: agent.steps, tool_calls: agent.toolCalls, agent_ms: Math.round(agentMs), wall_ms: Math.round(performance.now() - started) };
  } catch (err) {
    if (process.env.VMHUB_TASKS_SHOTS && leases[0]) await lastScreen(call, leases[0], join(process.env.VMHUB_TASKS_SHOTS, `${task.id}-${Date.now()}.png`));
    return { id: task.id, pass: false, error: String(err?.message ?? err).slice(0, 1500), steps: agent?.steps ?? 0, tool_calls: agent?.toolCalls ?? 0, wall_ms: Math.round(performance.now() - started), calls: agent?.log.slice(-12) };
  } finally {
    for (const l of leases) await call('vm_lease_release', { lease_id: l }).catch(() => undefined);
  }
}

/** Every task, `rounds` times over (each on its own fresh lease); `naive`: the agent's fixed-sleep variant. */
export async function runSuite(call, { template, rounds = 1, only, naive = false, onResult = () => {} } = {}) {
  const tasks = await loadTasks(only);
  const results = [];
  for (let round = 1; round <= rounds; round++) {
    for (const task of tasks) {
      const r = { round, ...(naive ? { naive } : {}), ...(await runTask(call, task, { template, naive })) };
      results.push(r);
      onResult(r);
    }
  }
  return results;
}
