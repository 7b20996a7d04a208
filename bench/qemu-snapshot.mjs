// QEMU snapshots under TCG (issue 31), through the provider's methods in process (the MCP tools
// are another package's; this measures what the provider does), for tiny-console (serial marker
// only) and tiny-console-agent (ready() adds guest-ping + guest-set-time), 256 MB guests:
//   - snapshot (pause, migrate to a file, resume) — N times;
//   - restore → ready: restore() + ready() of a lease onto a snapshot — N times; beside the naive
//     way (no snapshot: a new agent lease cold-booted, saved states off) and the floor; with the
//     agent also restore → clock set: ready() leaves qemu-ga's guest-set-time answering in the
//     background, so a new agent connection's guest-get-time (queued behind it) is timed from the
//     same start, with the guest clock's offset from the host's;
//   - fork ×4 → all ready: 4 creates from one snapshot at once + ready() — N_FORK rounds; beside
//     the naive way (4 full copies of the snapshot's state file, the copying alone) and the floor;
//     with the agent also → all four clocks set, the same way;
//   - floor: the migration-file load alone — a qemu of the same command line already started with
//     `-incoming defer` holding state.bin as fd 3 (as the provider starts it), timed from
//     `migrate-incoming fd:3` to "completed" (×1, and ×4 at once for the fork floor); qemu's start
//     to its monitor is given beside it, and the load through `exec:cat state.bin` (the provider's
//     way before: a shell, cat and a pipe) beside that;
//   - disk: a lease of the same golden with a qcow2 disk (64 MB, 48 MB of it written in the golden)
//     that wrote 8 MB after its start: bytes a snapshot adds (state file + the frozen overlay, hard
//     linked, no copy) and a fork's directory, against a full copy of the disk (qemu-img convert
//     of the chain) and the naive snapshot (state + that copy).
// Run:  pnpm --filter @vmhub/provider-qemu build && node bench/qemu-snapshot.mjs  (writes its
// section of bench/RESULTS.md; prints the figures).
import { spawn, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, copyFileSync, mkdirSync, openSync, mkdtempSync, readFileSync, rmSync, statSync, readdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { round, spread, writeResultsSection } from './lib.mjs';
import qemu, { buildGolden, QmpClient, tinyConsoleAgentTemplate, tinyConsoleTemplate } from '../packages/provider-qemu/dist/index.js';

const N = Number(process.env.N ?? 5);
const N_FORK = Number(process.env.N_FORK ?? 3);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ms = (t) => performance.now() - t;

/** Bytes a directory's files take on disk (allocated blocks), each inode counted once. */
function duBytes(dir, seen = new Set()) {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const s = statSync(join(dir, e.name));
    if (e.isDirectory()) n += duBytes(join(dir, e.name), seen);
    else if (!seen.has(s.ino)) { seen.add(s.ino); n += s.blocks * 512; }
  }
  return n;
}

async function monitor(sock) {
  for (let i = 0; ; i++) {
    try { return await QmpClient.connect(sock, { protocol: 'qmp', timeoutMs: 2_000 }); } catch (err) { if (i > 400) throw err; await sleep(5); }
  }
}

/**
 * The floor: qemus started with `argv` (a lease's command line, its directory and name replaced)
 * and `-incoming defer`, then all loaded from `stateFile` at once; each timed from migrate-incoming
 * to "completed". Returns the load times and the start → monitor times.
 */
async function floorLoad(argv, leaseDir, identity, stateFile, count, root, how = 'fd') {
  const procs = [];
  try {
    const started = [];
    for (let i = 0; i < count; i++) {
      const dir = join(root, `f${i}-${randomUUID().slice(0, 6)}`);
      mkdirSync(dir);
      const args = argv.slice(1).map((a) => a.replaceAll(leaseDir, dir).replace(identity, `floor-${i}`));
      const fd = openSync(stateFile, 'r');
      const t = performance.now();
      const p = spawn(argv[0], args, { stdio: ['ignore', 'ignore', 'ignore', fd] });
      closeSync(fd);
      procs.push(p);
      started.push({ dir, t });
    }
    const clients = [];
    const toMonitor = [];
    for (const s of started) { clients.push(await monitor(join(s.dir, 'qmp.sock'))); toMonitor.push(ms(s.t)); }
    const loads = await Promise.all(clients.map(async (c) => {
      const t = performance.now();
      await c.execute('migrate-incoming', { uri: how === 'fd' ? 'fd:3' : `exec:cat '${stateFile}'` });
      for (;;) {
        const info = await c.execute('query-migrate');
        if (info.status === 'completed') break;
        if (info.status === 'failed') throw new Error(`floor load failed: ${JSON.stringify(info)}`);
        await sleep(2);
      }
      return ms(t);
    }));
    for (const c of clients) c.close();
    return { loads, toMonitor };
  } finally {
    await Promise.all(procs.map((p) => { const gone = new Promise((ok) => p.once('exit', ok)); p.kill('SIGKILL'); return gone; }));
  }
}

export async function run() {
  const root = mkdtempSync(join(tmpdir(), 'vmhub-bench-snap-'));
  const prefix = `vmhub-bs${randomUUID().slice(0, 6)}-`;
  const machines = [];
  const log = () => {};
  const p = qemu.create({ state_dir: join(root, 'state') }, { identityPrefix: prefix, log });
  const cold = qemu.create({ state_dir: join(root, 'state-cold'), saved_state: false }, { identityPrefix: prefix, log });
  const stateDir = join(root, 'state');
  const stage = () => {};
  const lease = async (provider, template, from_snapshot) => {
    const identity = `${prefix}${randomUUID()}`;
    const m = await provider.create({ lease_id: identity.slice(prefix.length), identity, template, signal: AbortSignal.timeout(240_000), ...(from_snapshot ? { from_snapshot } : {}) });
    machines.push([provider, m]);
    await provider.ready(m, { template, signal: AbortSignal.timeout(240_000), stage });
    return m;
  };
  const destroy = async (provider, m) => { await provider.destroy(m); };
  const snapshot = (m, template) => p.snapshot(m, { identity: `${prefix}snap-${randomUUID()}`, template, signal: AbortSignal.timeout(120_000) });
  const sh = async (m, template, script) => {
    const ch = await p.channel(m, template);
    try { const r = await ch.exec(['/bin/sh', '-c', script], { timeoutMs: 60_000 }); if (r.exit_code !== 0) throw new Error(`${script}: ${r.stderr}`); return r.stdout.toString(); } finally { await ch.close(); }
  };
  /**
   * The clock set ready() left running: a new agent connection (the socket serves one client, so
   * it is accepted once ready()'s closes, after guest-set-time answered), then guest-get-time.
   * Returns the guest clock's offset from the host's, ms.
   */
  const clockSet = async (m) => {
    const c = await QmpClient.connect(join(stateDir, m.identity, 'qga.sock'), { protocol: 'qga', timeoutMs: 10_000 });
    try { return Date.now() - Number(await c.execute('guest-get-time', undefined, 10_000)) / 1e6; } finally { c.close(); }
  };
  /** snapshot ×N, restore → ready ×N, fork ×4 → all ready ×N_FORK and the floor, for one template. */
  const measure = async (template, agent) => {
    const parent = await lease(p, template); // makes the saved state (one boot), off the clock
    if (agent) await sh(parent, template, 'echo prepared > /root/state');
    const snapMs = [];
    const snaps = [];
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      snaps.push(await snapshot(parent, template));
      snapMs.push(ms(t));
      await sleep(300);
    }
    const s = snaps[0];
    for (const x of snaps.slice(1)) await p.deleteSnapshot(x);

    const restoreMs = [];
    const restoreOnlyMs = [];
    const restoreClockMs = [];
    const restoreClockOffset = [];
    for (let i = 0; i < N; i++) {
      if (agent) await sh(parent, template, 'echo diverged > /root/state');
      const t = performance.now();
      await p.restore(parent, s, { template, signal: AbortSignal.timeout(60_000) });
      restoreOnlyMs.push(ms(t));
      await p.ready(parent, { template, signal: AbortSignal.timeout(60_000), stage });
      restoreMs.push(ms(t));
      if (agent) {
        restoreClockOffset.push(Math.abs(await clockSet(parent)));
        restoreClockMs.push(ms(t));
      }
      if (agent && (await sh(parent, template, 'cat /root/state')).trim() !== 'prepared') throw new Error('restore did not bring the snapshot back');
      await sleep(300);
    }

    const forkMs = [];
    const forkClockMs = [];
    const forkClockOffset = [];
    for (let r = 0; r < N_FORK; r++) {
      const t = performance.now();
      const forks = await Promise.all([0, 1, 2, 3].map(() => lease(p, template, s)));
      forkMs.push(ms(t));
      if (agent) {
        forkClockOffset.push(...(await Promise.all(forks.map(clockSet))).map(Math.abs));
        forkClockMs.push(ms(t));
      }
      for (const f of forks) await destroy(p, f);
      await sleep(500);
    }

    // Floor: the migration-file load alone, in qemus of the parent's command line.
    const stateFile = join(s.external_id, 'state.bin');
    const rec = JSON.parse(readFileSync(join(stateDir, parent.identity, 'identity.json'), 'utf8'));
    const argv = readFileSync(`/proc/${rec.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const floorRoot = join(root, `floor-${template.id}`);
    mkdirSync(floorRoot);
    const floor1 = [];
    const catLoad = [];
    const toMonitor = [];
    for (let i = 0; i < N; i++) {
      const f = await floorLoad(argv, join(stateDir, parent.identity), parent.identity, stateFile, 1, floorRoot);
      floor1.push(...f.loads);
      toMonitor.push(...f.toMonitor);
      catLoad.push(...(await floorLoad(argv, join(stateDir, parent.identity), parent.identity, stateFile, 1, floorRoot, 'exec:cat')).loads);
    }
    const floor4 = [];
    for (let r = 0; r < N_FORK; r++) floor4.push(Math.max(...(await floorLoad(argv, join(stateDir, parent.identity), parent.identity, stateFile, 4, floorRoot)).loads));
    return {
      parent, s, stateFile,
      figures: {
        snapshot: { ...spread(snapMs), state_file_mb: round(s.size_bytes / 2 ** 20, 1) },
        restore_to_ready: { ...spread(restoreMs), restore_call_alone: spread(restoreOnlyMs) },
        ...(agent ? { restore_to_clock_set: { ...spread(restoreClockMs), guest_clock_offset_ms: spread(restoreClockOffset) } } : {}),
        fork_x4_to_all_ready: spread(forkMs),
        ...(agent ? { fork_x4_to_all_clocks_set: { ...spread(forkClockMs), guest_clock_offset_ms: spread(forkClockOffset) } } : {}),
        floor_migration_file_load: { one: spread(floor1), four_at_once_slowest: spread(floor4), qemu_start_to_monitor: spread(toMonitor), one_through_exec_cat: spread(catLoad) },
      },
    };
  };
  try {
    const loadStart = loadavg()[0];
    await buildGolden('tiny-console', { dir: join(root, 'golden') });
    await buildGolden('tiny-console-agent', { dir: join(root, 'golden') });
    const plain = await measure(tinyConsoleTemplate(join(root, 'golden')), false);
    const template = tinyConsoleAgentTemplate(join(root, 'golden'));
    const withAgent = await measure(template, true);
    await destroy(p, plain.parent);
    await p.deleteSnapshot(plain.s);
    const { stateFile } = withAgent;

    // Naive: no snapshot — a fresh machine cold-booted (and the work redone, not counted here).
    const naiveColdMs = [];
    for (let i = 0; i < 2; i++) {
      const t = performance.now();
      const m = await lease(cold, template);
      naiveColdMs.push(ms(t));
      await destroy(cold, m);
    }
    // Naive fork: a copy of the snapshot's state for each of 4 forks (the copying alone).
    const copyDir = join(root, 'copies');
    mkdirSync(copyDir);
    const copyMs = [];
    for (let r = 0; r < N_FORK; r++) {
      const t = performance.now();
      for (let i = 0; i < 4; i++) copyFileSync(stateFile, join(copyDir, `state-${i}.bin`));
      execFileSync('sync');
      copyMs.push(ms(t));
      rmSync(copyDir, { recursive: true, force: true });
      mkdirSync(copyDir);
    }

    // Disk: bytes per snapshot against a full copy.
    const goldenDisk = join(root, 'golden.qcow2');
    execFileSync('sh', ['-c', `head -c 48M /dev/urandom > '${root}/g.raw' && truncate -s 64M '${root}/g.raw' && qemu-img convert -q -f raw -O qcow2 '${root}/g.raw' '${goldenDisk}' && rm '${root}/g.raw'`]);
    const diskTemplate = { ...template, id: 'tiny-console-agent-disk', golden: goldenDisk, provider_options: { ...template.provider_options, kernel: join(root, 'golden', 'tiny-console-agent', 'vmlinuz') } };
    const d = await lease(p, diskTemplate); // makes its saved state (one boot)
    await sh(d, diskTemplate, 'head -c 8388608 /dev/urandom | dd of=/dev/vda bs=65536 seek=16 conv=notrunc 2>/dev/null; sync');
    const t = performance.now();
    const ds = await snapshot(d, diskTemplate);
    const diskSnapMs = ms(t);
    const drec = JSON.parse(readFileSync(join(ds.external_id, 'snapshot.json'), 'utf8'));
    const flat = join(root, 'full-copy.qcow2');
    const tc = performance.now();
    execFileSync('qemu-img', ['convert', '-U', '-O', 'qcow2', join(ds.external_id, drec.disk.top), flat]);
    const fullCopyMs = ms(tc);
    const fullCopyBytes = statSync(flat).blocks * 512;
    const df = await lease(p, diskTemplate, ds);
    const forkDir = join(stateDir, df.identity);
    const forkOwn = readdirSync(forkDir).filter((f) => /^(disk\.qcow2|qemu\.log|serial\.log|identity\.json)$/.test(f)).reduce((n, f) => n + statSync(join(forkDir, f)).blocks * 512, 0);

    const mb = (b) => round(b / 2 ** 20, 2);
    return {
      accel: 'tcg (no /dev/kvm here); guests 256 MB, 1 vCPU',
      load_average_1min: { start: round(loadStart, 1), end: round(loadavg()[0], 1) },
      targets_ms: { snapshot: 2000, restore_to_ready: 300, fork_x4_to_all_ready: 1500 },
      'tiny-console': plain.figures,
      'tiny-console-agent': withAgent.figures,
      naive: { restore_as_cold_boot_to_ready_agent: spread(naiveColdMs), fork_x4_state_copies_alone: spread(copyMs) },
      disk: {
        golden: '64 MB qcow2, 48 MB written; the lease wrote 8 MB after its start',
        snapshot_ms: round(diskSnapMs),
        snapshot_adds_mb: mb(ds.size_bytes), state_file_mb: mb(drec.state_bytes), frozen_layer_mb: mb(drec.disk.layer_bytes),
        snapshot_dir_du_mb: mb(duBytes(ds.external_id)),
        full_disk_copy_mb: mb(fullCopyBytes), full_disk_copy_ms: round(fullCopyMs),
        naive_snapshot_mb: mb(drec.state_bytes + fullCopyBytes),
        fork_own_files_mb: mb(forkOwn),
      },
    };
  } finally {
    for (const [provider, m] of machines) await provider.destroy(m).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  const figures = await run();
  console.log(JSON.stringify(figures, null, 2));
  writeResultsSection({
    name: 'qemu-snapshot',
    title: 'QEMU under TCG: snapshot, restore and fork a running machine (issue 31)',
    targets: 'snapshot ≤ 2 s; restore → ready ≤ 300 ms; fork ×4 → all ready ≤ 1.5 s; beside the floor (the migration-file load alone) and the naive way; disk bytes per snapshot against a full disk copy',
    figures, seconds: (Date.now() - started) / 1000, command: 'node bench/qemu-snapshot.mjs', after: 'qemu-restore',
  });
}
