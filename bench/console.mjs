// QEMU under TCG with the console adapter, through the MCP client against the built server:
// boot → ready (tiny-console golden: Debian kernel + busybox initramfs), vm_screenshot p50/p95
// (QMP screendump → PNG), vm_key p50/p95 (QMP input-send-event).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectServer, percentile, round, runAsScript } from './lib.mjs';

const N = Number(process.env.N ?? 30);

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-console-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ instance: 'benchq', db: join(dir, 'vmhub.db'), providers: { qemu: { state_dir: join(dir, 'state') } } }));
  const client = await connectServer({ VMHUB_CONFIG: config });
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
    return r.structuredContent;
  };
  let lease;
  try {
    const t = performance.now();
    lease = (await call('vm_lease_create', { template: 'tiny-console' })).lease_id;
    let status = 'provisioning';
    while (['provisioning', 'starting'].includes(status)) status = (await call('vm_lease_status', { lease_id: lease, wait_seconds: 20 })).status;
    if (status !== 'ready') throw new Error(`lease ${status}`);
    const boot = performance.now() - t;
    const shots = [];
    let bytes = 0;
    for (let i = 0; i < N; i++) { const s = performance.now(); bytes = (await call('vm_screenshot', { lease_id: lease })).bytes; shots.push(performance.now() - s); }
    const keys = [];
    for (let i = 0; i < N; i++) { const s = performance.now(); await call('vm_key', { lease_id: lease, keys: 'shift' }); keys.push(performance.now() - s); }
    return {
      boot_to_ready_ms: round(boot),
      screenshot: { p50_ms: round(percentile(shots, 50)), p95_ms: round(percentile(shots, 95)), png_bytes: bytes, n: N },
      key: { p50_ms: round(percentile(keys, 50)), p95_ms: round(percentile(keys, 95)), n: N },
      accel: 'tcg (no /dev/kvm on this machine)',
    };
  } finally {
    if (lease) await client.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } }).catch(() => undefined);
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await runAsScript(import.meta.url, run);
