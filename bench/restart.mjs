// vm_lease_restart → ready (issue 32) as the MCP client sees it, through the built server: the
// restart call, then vm_lease_status until the lease is ready again, graceful and {hard: true}, on
//   Docker (debian-x11)          beside the floor: `docker restart -t 10` of a container of the same
//                                golden run alone, then ONE `docker exec` polling until the X display
//                                and the window manager answer (the readiness vmhub waits for);
//   QEMU (tiny-console-agent)    beside the floor: QMP `system_reset` on the lease's own qemu (its
//                                -no-reboot lifted with set-action), then serial.log polled until the
//                                ready marker appears after the reset.
// Run from the repo root after `pnpm run build`:  node bench/restart.mjs   (N=5 restarts of each kind;
// writes its section of bench/RESULTS.md).
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { leaseReady, runAsSection, spread, withBenchServer } from './lib.mjs';

const N = Number(process.env.N ?? 5);
const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const need = createRequire(join(root, 'apps/server/package.json'));
const { debianX11Template } = await import(pathToFileURL(need.resolve('@vmhub/provider-docker')).href);
const { QmpClient, TINY_CONSOLE_READY_MARKER } = await import(pathToFileURL(need.resolve('@vmhub/provider-qemu')).href);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** vm_lease_restart, then vm_lease_status until ready: ms, and the reboot stage's detail. */
async function restartToReady(call, lease, hard) {
  const t = performance.now();
  let view = (await call('vm_lease_restart', { lease_id: lease, ...(hard ? { hard: true } : {}) })).structuredContent;
  while (view.status === 'starting') view = (await call('vm_lease_status', { lease_id: lease, wait_seconds: 20 })).structuredContent;
  if (view.status !== 'ready') throw new Error(`lease ${lease} ${view.status} after a restart: ${JSON.stringify(view)}`);
  return { ms: performance.now() - t, reboot: view.stages[0]?.detail ?? '' };
}

async function restarts(call, lease) {
  const out = {};
  for (const hard of [false, true]) {
    const times = [];
    let detail = '';
    for (let i = 0; i < N; i++) {
      await sleep(500);
      const r = await restartToReady(call, lease, hard);
      times.push(r.ms);
      detail = r.reboot;
    }
    out[hard ? 'hard' : 'graceful'] = { ...spread(times), reboot_stage: detail };
  }
  return out;
}

/** The Docker floor: one container of the golden, restarted N times, each until the window manager answers. */
async function dockerFloor(golden) {
  const name = `vmhub-bench-restart-${process.pid}`;
  const probe = 'until xdpyinfo >/dev/null 2>&1; do sleep 0.01; done; until wmctrl -m >/dev/null 2>&1; do sleep 0.01; done; echo wm';
  const ready = () => new Promise((resolve, reject) => {
    const p = spawn('docker', ['exec', '-u', 'user', '-e', 'DISPLAY=:0', name, 'sh', '-c', probe], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('error', reject);
    p.on('close', (code) => (code === 0 && out.includes('wm') ? resolve() : reject(new Error(`floor probe exited ${code}`))));
  });
  const times = [];
  try {
    await run('docker', ['run', '-d', '--network', 'none', '--name', name, '-e', 'VMHUB_SCREEN=1280x800x24', golden]);
    await ready();
    for (let i = 0; i < N; i++) {
      await sleep(500);
      const t = performance.now();
      await run('docker', ['restart', '-t', '10', name]);
      await ready();
      times.push(performance.now() - t);
    }
  } finally {
    await run('docker', ['rm', '-f', name]).catch(() => undefined);
  }
  return spread(times);
}

/** Does `file` hold `marker` after byte `from`? */
function markerAfter(file, from, marker) {
  const size = statSync(file).size;
  if (size <= from) return false;
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(size - from);
    readSync(fd, b, 0, b.length, from);
    return b.includes(marker);
  } finally { closeSync(fd); }
}

/** The QEMU floor: system_reset on the lease's qemu (its state dir `dir`), until the marker shows after the reset. */
async function qemuFloor(dir) {
  const serial = join(dir, 'serial.log');
  const times = [];
  const m = await QmpClient.connect(join(dir, 'qmp.sock'), { protocol: 'qmp', timeoutMs: 10_000 });
  try {
    await m.execute('set-action', { reboot: 'reset' });
    for (let i = 0; i < N; i++) {
      await sleep(500);
      const from = statSync(serial).size;
      const t = performance.now();
      await m.execute('system_reset');
      while (!markerAfter(serial, from, TINY_CONSOLE_READY_MARKER)) await sleep(20);
      times.push(performance.now() - t);
    }
  } finally {
    await m.execute('set-action', { reboot: 'shutdown' }).catch(() => undefined);
    m.close();
  }
  return spread(times);
}

async function measure() {
  const instance = `br${randomUUID().slice(0, 6)}`;
  const docker = await withBenchServer('restart-docker', { instance: `${instance}d`, reaper: { autostart: false } }, async ({ call, leases }) => {
    const lease = await leaseReady(call, 'debian-x11', (id) => leases.push(id));
    return restarts(call, lease);
  });
  const dockerFloorMs = await dockerFloor(debianX11Template.golden);
  // The qemu provider's state in a directory of our own: the floor reaches the lease's monitor there.
  const state = mkdtempSync(join(tmpdir(), 'vmhub-bench-restart-qemu-'));
  let qemu;
  try {
    qemu = await withBenchServer('restart-qemu', { instance: `${instance}q`, reaper: { autostart: false } }, async ({ call, leases }) => {
      const lease = await leaseReady(call, 'tiny-console-agent', (id) => leases.push(id));
      const figures = await restarts(call, lease);
      const machineDir = join(state, `vmhub-${instance}q-${lease}`);
      if (!existsSync(machineDir)) throw new Error(`no state directory ${machineDir}`);
      return { ...figures, floor_system_reset_until_marker: await qemuFloor(machineDir) };
    }, { VMHUB_QEMU_STATE_DIR: state });
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
  return {
    restarts_each: N,
    docker_debian_x11: { restart_to_ready: { graceful: docker.graceful, hard: docker.hard }, floor_docker_restart_until_window_manager: dockerFloorMs },
    qemu_tiny_console_agent_tcg: { restart_to_ready: { graceful: qemu.graceful, hard: qemu.hard }, floor_system_reset_until_marker: qemu.floor_system_reset_until_marker },
  };
}

await runAsSection(import.meta.url, {
  name: 'restart',
  title: 'Restart → ready: vm_lease_restart on Docker and QEMU (TCG) beside the engines\' floors (issue 32)',
  targets: 'restart → ready within 1 s of the floor on each engine (Docker: `docker restart` + the same readiness wait; QEMU: QMP `system_reset` until the serial ready marker), as the MCP client sees it (the restart call, then vm_lease_status until ready)',
  command: 'node bench/restart.mjs',
  after: 'docker-snapshot',
}, measure);
