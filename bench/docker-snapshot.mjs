// Docker snapshots (issue 31), through the provider itself (the built @vmhub/provider-docker, no
// MCP server): one debian-x11 machine with 16 MiB written in its home, then N rounds of
//   snapshot (docker commit, paused)  beside the naive way: a full `docker export` of the container;
//   restore → ready (the container replaced from the snapshot image, the desktop up again)
//                                      beside the floor: `docker run` of the first snapshot's image alone
//                                      until the window manager answers (lib.mjs floorSampler);
//   fork → ready (a new lease's container from the snapshot image);
// and the disk: bytes a snapshot adds (its image layer) against the full export's bytes.
// memory: false on this engine (no CRIU checkpoint: docs/providers/docker.md), so no checkpoint figures.
// Run from the repo root after `pnpm --filter @vmhub/provider-docker build`:  node bench/docker-snapshot.mjs
// (writes its section of bench/RESULTS.md; N=5 by default; BENCH_LOG=1 prints each restore's phases to stderr).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { floorSampler, round, runAsSection, spread } from './lib.mjs';

const N = Number(process.env.N ?? 5);
const root = fileURLToPath(new URL('..', import.meta.url));
const docker = await import(pathToFileURL(createRequire(join(root, 'apps/server/package.json')).resolve('@vmhub/provider-docker')).href);
const { createDockerProvider, debianX11Template: template, DockerClient } = docker;

const MiB = 2 ** 20;

/** Bytes and ms of a full filesystem export of the container (GET /containers/{id}/export), counted as it streams. */
async function fullExport(client, id) {
  const t = performance.now();
  const res = await client.stream('GET', `/containers/${id}/export`);
  let bytes = 0;
  for await (const chunk of res) bytes += chunk.length;
  return { bytes, ms: performance.now() - t };
}

async function run() {
  const instance = `bs${randomUUID().slice(0, 6)}`;
  const context = { identityPrefix: `vmhub-${instance}-`, log: (level, msg, data) => { if (process.env.BENCH_LOG && /put back/.test(msg)) console.error(JSON.stringify(data)); } };
  const provider = createDockerProvider({}, context);
  const client = new DockerClient();
  const signal = () => AbortSignal.timeout(120_000);
  const made = [];
  const snaps = [];
  const lease = randomUUID();
  /** A command in the guest as the desktop user, through a channel of its own; throws unless it exits 0. */
  const sh = async (m, script) => {
    const ch = await provider.channel(m, template);
    try {
      const r = await ch.exec(['sh', '-c', script], { timeoutMs: 30_000 });
      if (r.exit_code !== 0) throw new Error(`${script} exited ${r.exit_code}: ${r.stderr}`);
      return r.stdout.toString().trim();
    } finally { await ch.close(); }
  };
  try {
    let machine = await provider.create({ lease_id: lease, identity: `${context.identityPrefix}${lease}`, template, signal: signal() });
    made.push(machine);
    await provider.ready(machine, { template, signal: signal(), stage: () => {} });
    await sh(machine, 'head -c 16777216 /dev/urandom > ~/work.bin');

    const snapshot = [];
    const restore = [];
    const fork = [];
    const exportMs = [];
    const layer = [];
    let exportBytes = 0;
    let floor;
    for (let i = 0; i < N; i++) {
      const identity = `${context.identityPrefix}snap-${randomUUID()}`;
      await sh(machine, `head -c 1048576 /dev/urandom > ~/round-${i}.bin`);
      let t = performance.now();
      const snap = await provider.snapshot(machine, { identity, template, signal: signal() });
      snapshot.push(performance.now() - t);
      snaps.push(snap);
      layer.push(snap.size_bytes);
      const exp = await fullExport(client, machine.external_id);
      exportMs.push(exp.ms);
      exportBytes = exp.bytes;
      await sh(machine, 'head -c 1048576 /dev/urandom > ~/discarded.bin');
      t = performance.now();
      machine = (await provider.restore(machine, snap, { template, signal: signal() })) ?? machine;
      restore.push(performance.now() - t);
      made.push(machine);
      // Checked off the clock: the round's file is back, the discarded one gone.
      await sh(machine, `test -s ~/round-${i}.bin && test ! -e ~/discarded.bin && test -s ~/work.bin`);
      const forkLease = randomUUID();
      t = performance.now();
      const forked = await provider.create({ lease_id: forkLease, identity: `${context.identityPrefix}${forkLease}`, template, signal: signal(), from_snapshot: snap });
      made.push(forked);
      await provider.ready(forked, { template, signal: signal(), stage: () => {} });
      fork.push(performance.now() - t);
      await provider.destroy(forked);
      // The floor on the same image: run it alone until the window manager answers.
      floor ??= floorSampler(snap.details.tag, 'snapshot');
      await floor.sample(i);
    }
    return {
      samples: N,
      memory: provider.snapshotSupport(template).memory,
      snapshot_ms: { commit_paused: spread(snapshot), naive_full_export: spread(exportMs) },
      restore_to_ready_ms: { restore: spread(restore), floor_run_snapshot_image: floor.stats() },
      fork_to_ready_ms: spread(fork),
      disk: {
        first_snapshot_layer_bytes: layer[0],
        later_snapshot_layer_bytes: { median: [...layer.slice(1)].sort((a, b) => a - b)[Math.floor((layer.length - 1) / 2)], max: Math.max(...layer.slice(1)), n: layer.length - 1 },
        full_export_bytes: exportBytes,
        first_snapshot_vs_export: `${round((100 * layer[0]) / exportBytes, 1)} %`,
        note: `before the first snapshot the guest wrote 16 MiB + 1 MiB (its layer is over the golden); each later round writes 1 MiB after a restore (its layer is over the previous snapshot's image); a full copy exports ${round(exportBytes / MiB, 0)} MiB each time`,
      },
    };
  } finally {
    for (const m of made) await provider.destroy(m).catch(() => undefined);
    for (const s of snaps) await provider.deleteSnapshot(s).catch(() => undefined);
    await provider.close?.();
    client.close();
  }
}

await runAsSection(import.meta.url, {
  name: 'docker-snapshot',
  title: 'Docker snapshots: commit, restore → ready and fork → ready, memory: false (issue 31)',
  targets: 'restore → ready ≤ 1 s with memory: false, beside the floor (`docker run` of the snapshot image until the window manager answers); snapshot time beside a full `docker export`; disk per snapshot against the full export',
  command: 'node bench/docker-snapshot.mjs',
  after: 'qemu-restore',
}, run);
