// Workspaces (issue 32): create → ready of a lease with a workspace beside one without, through
// the built server over MCP (vm_lease_create, then vm_lease_status {wait_seconds} until ready),
// on Docker debian-x11 and QEMU tiny-console-agent (TCG). Per engine, N rounds of: a lease without
// a workspace; a lease with the workspace "bench" (the first round makes it: a new Docker volume
// the image's home is copied into / a new ext4 qcow2; later rounds attach it again), each released
// before the next. A QEMU lease resumes from the template's saved state with or without a
// workspace (the disk is hot-plugged and mounted before create answers); beside them, the naive
// way in the same run: a lease with the workspace on the same template with saved_state off,
// which cold-boots with the disk attached at boot (what every workspace lease did before). The
// workspace is deleted at the end (vmhub-server workspaces rm).
// Run from the repo root after `pnpm run build`:  node bench/workspace.mjs   (N=5 by default)
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SERVER_BIN, leaseReady, runAsSection, spread, withBenchServer } from './lib.mjs';

const N = Number(process.env.N ?? 5);
const run = promisify(execFile);

/** One lease of `template` (with `workspace` when given) until ready: its milliseconds; released after. */
async function onceReady(call, leases, template, workspace) {
  const t = performance.now();
  const r = await call('vm_lease_create', { template, ...(workspace ? { workspace } : {}) });
  const lease = r.structuredContent.lease_id;
  leases.push(lease);
  let status = r.structuredContent.status;
  while (['provisioning', 'starting'].includes(status)) status = (await call('vm_lease_status', { lease_id: lease, wait_seconds: 20 })).structuredContent.status;
  if (status !== 'ready') throw new Error(`lease ${lease} ${status}`);
  const ms = performance.now() - t;
  await call('vm_lease_release', { lease_id: lease });
  leases.splice(leases.indexOf(lease), 1);
  return ms;
}

async function engine(name, template, config, coldTemplate) {
  return withBenchServer(`ws-${name}`, { instance: `bw${name}${process.pid}`, reaper: { autostart: false }, ...config }, async ({ call, leases, dir }) => {
    // Warm: the golden's image / saved state exists before the first timed lease.
    await call('vm_lease_release', { lease_id: await leaseReady(call, template, (id) => leases.push(id)) });
    leases.length = 0;
    const without = [];
    const withWs = [];
    const cold = [];
    let first;
    for (let i = 0; i < N; i++) {
      without.push(await onceReady(call, leases, template));
      const ms = await onceReady(call, leases, template, 'bench');
      if (i === 0) first = ms;
      else withWs.push(ms);
      if (coldTemplate) cold.push(await onceReady(call, leases, coldTemplate, 'bench'));
    }
    await run(process.execPath, [SERVER_BIN, 'workspaces', 'rm', 'bench'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, VMHUB_CONFIG: join(dir, 'config.json'), VMHUB_LOG_LEVEL: 'error' } });
    return { without_workspace: spread(without), new_workspace_first_lease: Math.round(first), existing_workspace: spread(withWs), ...(coldTemplate ? { existing_workspace_cold_boot: spread(cold) } : {}) };
  });
}

/** Both engines' figures (QEMU in a state directory of its own, removed after). */
async function measure() {
  const dockerFigures = await engine('docker', 'debian-x11', { providers: { docker: { framebuffer: false } } });
  const { tmpdir } = await import('node:os');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const qemuDir = mkdtempSync(join(tmpdir(), 'vmhub-bench-ws-qemu-'));
  let qemuFigures;
  try {
    const { tinyConsoleAgentTemplate } = await import('../packages/provider-qemu/dist/index.js');
    const agent = tinyConsoleAgentTemplate();
    const cold = { ...agent, id: 'tiny-console-agent-cold', provider_options: { ...agent.provider_options, saved_state: false } };
    qemuFigures = await engine('qemu', 'tiny-console-agent', { templates: [agent, cold], providers: { qemu: { state_dir: qemuDir } } }, cold.id);
  } finally {
    rmSync(qemuDir, { recursive: true, force: true });
  }
  const figures = {
    samples: N,
    create_to_ready_ms: { docker_debian_x11: dockerFigures, qemu_tcg_tiny_console_agent: qemuFigures },
    note: 'each lease released before the next; the first lease with the workspace makes it (Docker: a named volume the image\'s home is copied into; QEMU: mkfs.ext4 + qemu-img convert of a 4 GiB thin disk), later ones attach it; QEMU leases resume from the saved state with or without a workspace (the disk hot-plugged into the slot root port and mounted by the guest before create answers); existing_workspace_cold_boot is the naive way in the same run (saved_state off: a cold boot with the disk attached at boot)',
  };
  return figures;
}

await runAsSection(import.meta.url, {
  name: 'workspace',
  title: 'Workspaces: create → ready with a workspace vs without (issue 32)',
  targets: 'a workspace adds little to a create: a volume mount on Docker, a hot-plug and mount on QEMU (no cold boot)',
  command: 'node bench/workspace.mjs',
  after: 'docker-snapshot',
}, measure);
