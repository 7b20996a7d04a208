// The debian-desktop golden (issue 33), through the built server over MCP:
// - lease → first usable screenshot of the desktop, cold and from a warm pool (pool.mjs's
//   measure: create → ready → the first vm_screenshot answered), N each;
// - vm_inspect p50 on the focused Firefox window (the tasks' sign-up page, served in the lease)
//   and the focused Writer window (a new document), with the default budgets (500 nodes, 3 s);
// - vm_screenshot p50 at 1920×1080: the whole screen at full size, and fitted to 1280×800 (the
//   default an agent gets).
// Run from the repo root after `pnpm run build` and `vmhub-server golden build debian-desktop`:
//   node bench/desktop-golden.mjs   (N=5 leases each way, M=15 calls each)
import { mkdtempSync, rmSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { leaseReady, runAsSection, stats, timeIt } from './lib.mjs';
import { measure, server } from './pool.mjs';
import { machine } from './tasks/agent.mjs';
import { SITE, startSite } from './tasks/site.mjs';

const run = promisify(execFile);
const N = Number(process.env.N ?? 5);
const M = Number(process.env.M ?? 15);

/** `n` vm_inspect calls on the lease's focused window once `ready(tree)` holds: their stats and the last tree's size. */
async function inspectTimes(call, lease, ready) {
  for (let i = 0; i < 60; i++) {
    const t = (await call('vm_inspect', { lease_id: lease })).structuredContent;
    if (ready(t)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  let last;
  const times = await timeIt(M, async () => { last = (await call('vm_inspect', { lease_id: lease })).structuredContent; });
  return { ...stats(times), nodes: last.nodes, truncated: last.truncated ? last.reason : false, root: last.tree.name };
}

async function figures() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-desktop-'));
  const servers = [];
  const leases = [];
  try {
    const cold = await server(dir, 'dcold', {});
    servers.push(cold);
    const lease_to_first_screenshot = { cold: await measure(cold, 'debian-desktop', N, false, leases) };
    const lease = await leaseReady(cold.call, 'debian-desktop', (id) => leases.push(id));
    const call = cold.call;
    const m = machine(call, lease);
    await startSite(m);
    await call('vm_launch', { lease_id: lease, app: 'firefox-esr', args: [`${SITE}/`], wait_seconds: 20 });
    await call('vm_wait', { lease_id: lease, for: 'text', text: 'Sign up for the newsletter', timeout_seconds: 50 });
    const firefox = await inspectTimes(call, lease, (t) => /Sign up/.test(t.tree.name ?? '') && t.nodes > 20);
    await call('vm_launch', { lease_id: lease, app: 'libreoffice', args: ['--writer', '--norestore'], wait_seconds: 20 });
    const writer = await inspectTimes(call, lease, (t) => /Writer/.test(t.tree.name ?? '') && JSON.stringify(t.tree).includes('"document text"'));
    const full = stats(await timeIt(M, () => call('vm_screenshot', { lease_id: lease, max_width: 1920, max_height: 1080 })));
    const fitted = stats(await timeIt(M, () => call('vm_screenshot', { lease_id: lease })));
    await call('vm_lease_release', { lease_id: leases.pop() });
    const warm = await server(dir, 'dwarm', { 'debian-desktop': { min_ready: 1, max: 1 } });
    servers.push(warm);
    lease_to_first_screenshot.warm_pool = await measure(warm, 'debian-desktop', N, true, leases);
    return {
      samples: { leases: N, calls: M }, lease_to_first_screenshot,
      vm_inspect_focused_window: { firefox_signup_page: firefox, writer_new_document: writer },
      vm_screenshot_1920x1080: { full_size_png: full, fitted_1280x800: fitted },
    };
  } finally {
    for (const s of servers) {
      for (const l of leases) await s.client.callTool({ name: 'vm_lease_release', arguments: { lease_id: l } }).catch(() => undefined);
      await s.client.close().catch(() => undefined);
    }
    await run('sh', ['-c', 'docker rm -f $(docker ps -aq --filter name=vmhub-bpdwarm-) 2>/dev/null || true']);
    rmSync(dir, { recursive: true, force: true });
  }
}

await runAsSection(import.meta.url, {
  name: 'desktop-golden',
  title: 'debian-desktop: lease → first screenshot, vm_inspect, screenshots at 1920×1080 (issue 33)',
  targets: 'a desktop lease is usable as fast as the X11 one; vm_inspect of a focused window within its 3 s budget',
  command: 'node bench/desktop-golden.mjs',
  after: 'tasks',
}, figures);
