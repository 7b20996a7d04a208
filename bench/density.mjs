// Density (issue 35.5): how many idle agents one host holds. Through the built server over MCP
// (stdio): one ACTIVE debian-x11 lease (two terminals of text, as bench/desktop.mjs) and N IDLE
// ones (created → ready, one screenshot each so the server holds their session, as an agent that
// looked and paused), for N = 0, 1, 10, 20, 40 in one run. At each N:
//   - the active lease's vm_screenshot p50 and vm_click p50 (ratio to N = 0, alone);
//   - create → ready of the leases added to reach N (the last one's, and the median of the band);
//   - memory per idle lease, attributed: the container's own (docker stats: usage − cache, per
//     container, median), its containerd-shim's RSS, its framebuffer file on the host tmpfs
//     (Xvfb -fbdir), and the server's anonymous-memory growth per idle lease (its shared pages are
//     those framebuffer files, mapped to read screens: counted once); their sum is the host memory
//     an idle lease costs. Beside it the host's MemAvailable drop per idle lease (noisier: anything
//     else on the host moves it).
// Memory is read after the leases have idled IDLE_WAIT_MS (default 20 s), then the active lease is
// timed. Target: 40 idle leases with the active screenshot p50 ≤ 1.5× alone and ≤ 60 MB host memory per
// idle lease. Run from the repo root after a build:  node bench/density.mjs  (LEVELS=0,1,10,20,40,
// N=20 timed calls per level; writes its section of bench/RESULTS.md).
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import { clickTimes, leaseReady, percentile, round, runAsSection, screenshotStats, stats, warmScreen, withBenchServer } from './lib.mjs';

const run = promisify(execFile);
const LEVELS = (process.env.LEVELS ?? '0,1,10,20,40').split(',').map(Number);
const N = Number(process.env.N ?? 20);
const INSTANCE = 'bdens';
/** How long the leases idle before memory is read at each level (IDLE_WAIT_MS). */
const IDLE_WAIT_MS = Number(process.env.IDLE_WAIT_MS ?? 20_000);
const MiB = 2 ** 20;

/** A /proc/<pid>/status field in kB (VmRSS, RssAnon, RssShmem…) → bytes. */
const statusBytes = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
const rssOf = (pid) => statusBytes(pid, 'VmRSS');
const memAvailable = () => Number(/MemAvailable:\s+(\d+) kB/.exec(readFileSync('/proc/meminfo', 'utf8'))[1]) * 1024;

/** docker stats' memory use (usage − cache) of each container, bytes, by full container id. */
async function containerMemory(ids) {
  const { stdout } = await run('docker', ['stats', '--no-stream', '--no-trunc', '--format', '{{.ID}} {{.MemUsage}}', ...ids]);
  const unit = { B: 1, KiB: 2 ** 10, MiB, GiB: 2 ** 30, kB: 1e3, MB: 1e6, GB: 1e9 };
  return Object.fromEntries(stdout.trim().split('\n').map((line) => {
    const [id, used] = line.split(/\s+/);
    const m = /^([\d.]+)([A-Za-z]+)$/.exec(used);
    return [id, m ? Number(m[1]) * (unit[m[2]] ?? 1) : NaN];
  }));
}

/** RSS of the containerd-shim that runs each container (its argv names the container id), bytes. */
async function shimMemory(ids) {
  const { stdout } = await run('ps', ['-eo', 'pid=,args=']);
  const out = {};
  for (const line of stdout.split('\n')) {
    if (!line.includes('containerd-shim')) continue;
    const [pid] = line.trim().split(/\s+/);
    for (const id of ids) if (line.includes(id)) out[id] = rssOf(pid);
  }
  return out;
}

/** Bytes of the machine's framebuffer file on the host tmpfs (allocated, not apparent). */
function framebufferBytes(identity) {
  const uid = process.getuid();
  try { return statSync(`/dev/shm/vmhub-fb-${uid}/${identity}/screen/Xvfb_screen0`).blocks * 512; } catch { return 0; }
}

async function run_() {
  return withBenchServer('density', { instance: INSTANCE, leases: { max_per_owner: 64, max_total: 64 } }, async ({ client, call, leases }) => {
    const serverPid = client.transport.pid;
    const inspect = async (lease) => JSON.parse((await run('docker', ['inspect', `vmhub-${INSTANCE}-${lease}`])).stdout)[0].Id;
    // The active lease: a realistic screen, two terminals full of text.
    const active = await leaseReady(call, 'debian-x11', (id) => leases.push(id));
    await call('vm_launch', { lease_id: active, app: 'xterm', args: ['-geometry', '100x40+0+0', '-e', 'sh', '-c', 'ls -la /usr/bin | head -60; sleep 3600'], wait_seconds: 10 });
    await call('vm_launch', { lease_id: active, app: 'xterm', args: ['-geometry', '90x30+560+300', '-e', 'sh', '-c', 'dpkg -l | head -60; sleep 3600'], wait_seconds: 10 });
    await warmScreen(call, active);

    const idle = [];
    const rows = [];
    let serverBase;
    let availBase;
    for (const level of LEVELS) {
      const created = [];
      while (idle.length < level) {
        const t = performance.now();
        const id = await leaseReady(call, 'debian-x11', (x) => leases.push(x));
        created.push(performance.now() - t);
        // An agent that looked once and paused: its session is open on the server.
        await call('vm_screenshot', { lease_id: id, max_width: 640 });
        idle.push({ lease: id, container: await inspect(id) });
      }
      // Idle long enough for what a session drops when unused (adapter-x11's frame buffers, 15 s).
      await new Promise((r) => setTimeout(r, IDLE_WAIT_MS));
      // Anonymous memory only: the server's shared pages are the machines' framebuffer files
      // (mapped to read the screen), counted once, under framebuffer_tmpfs.
      const serverRss = statusBytes(serverPid, 'RssAnon');
      const serverShmem = statusBytes(serverPid, 'RssShmem');
      const avail = memAvailable();
      if (level === 0) { serverBase = serverRss; availBase = avail; }
      await call('vm_screenshot', { lease_id: active });
      const shot = await screenshotStats(call, active, N);
      const click = stats(await clickTimes(call, active, N, 600, 400));
      const row = { idle: level, load_average_1min: round(loadavg()[0], 2), active_screenshot: { p50_ms: shot.p50_ms, p95_ms: shot.p95_ms }, active_click: { p50_ms: click.p50_ms, p95_ms: click.p95_ms } };
      if (created.length) row.create_to_ready_ms = { last: round(created.at(-1)), median_of_band: round(percentile(created, 50)), n: created.length };
      if (level > 0) {
        const ids = idle.map((x) => x.container);
        const [mem, shim] = await Promise.all([containerMemory(ids), shimMemory(ids)]);
        const per = idle.map((x) => ({ container: mem[x.container] ?? NaN, shim: shim[x.container] ?? 0, framebuffer: framebufferBytes(`vmhub-${INSTANCE}-${x.lease}`) }));
        const med = (k) => round(percentile(per.map((p) => p[k]), 50) / MiB, 1);
        const serverPer = (serverRss - serverBase) / level / MiB;
        row.memory_per_idle_lease_mb = {
          container: med('container'), containerd_shim: med('shim'), framebuffer_tmpfs: med('framebuffer'),
          server_anon_growth: round(serverPer, 2),
          server_shared_mapped: round(serverShmem / (level + 1) / MiB, 1),
          host_total: round(med('container') + med('shim') + med('framebuffer') + Math.max(0, serverPer), 1),
          host_memavailable_drop: round((availBase - avail) / level / MiB, 1),
        };
      }
      rows.push(row);
      console.error(JSON.stringify(row));
    }
    const alone = rows.find((r) => r.idle === 0);
    const most = rows.at(-1);
    return {
      setup: 'debian-x11 on Docker (Xvfb 1280×800×24 + openbox), the active lease with two xterms; idle leases each took one 640-wide screenshot after ready; server over stdio; timed calls per level: ' + N,
      levels: rows,
      at_most_idle: {
        idle: most.idle,
        active_screenshot_p50_over_alone: round(most.active_screenshot.p50_ms / alone.active_screenshot.p50_ms, 2),
        active_click_p50_over_alone: round(most.active_click.p50_ms / alone.active_click.p50_ms, 2),
        host_memory_per_idle_lease_mb: most.memory_per_idle_lease_mb?.host_total,
      },
      targets: { idle: 40, active_screenshot_p50_over_alone: 1.5, host_memory_per_idle_lease_mb: 60 },
    };
  });
}

export { run_ as run };
await runAsSection(import.meta.url, {
  name: 'density',
  title: 'Density: one active debian-x11 lease among N idle ones on this host (issue 35.5)',
  targets: '40 idle leases with the active lease\'s screenshot p50 ≤ 1.5× alone and ≤ 60 MB host memory per idle lease; memory per lease (engine and server side), the active lease\'s screenshot and click p50, create → ready at N = 0, 1, 10, 20, 40',
  command: 'node bench/density.mjs', after: 'live-view',
}, run_);
