// Wayland (sway 1.7 headless, wayland-sway golden, @vmhub/adapter-hyprland) beside X11
// (debian-x11, @vmhub/adapter-x11), both on the Docker provider, through the MCP client against
// the built server, in one run: vm_click, vm_type and vm_screenshot p50/p95 at 1280×800, and
// create → ready. Both desktops show the same two terminals full of text.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectServer, round, stats, timeIt } from './lib.mjs';

const N = Number(process.env.N ?? 40);

const DESKTOPS = {
  x11: { template: 'debian-x11', terminal: (geometry, cmd) => ({ app: 'xterm', args: ['-geometry', geometry, '-e', 'sh', '-c', cmd] }) },
  // sway tiles: the two terminals split the output side by side.
  sway: { template: 'wayland-sway', terminal: (_geometry, cmd) => ({ app: 'foot', args: ['sh', '-c', cmd] }) },
};

export async function run_() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-wayland-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ instance: 'benchwl', db: join(dir, 'vmhub.db'), reaper: { autostart: false } }));
  const client = await connectServer({ VMHUB_CONFIG: config });
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
    return r;
  };
  const leases = [];
  const out = {};
  const create = async (template) => {
    const lease = (await call('vm_lease_create', { template })).structuredContent.lease_id;
    leases.push(lease);
    let status = 'provisioning';
    while (['provisioning', 'starting'].includes(status)) status = (await call('vm_lease_status', { lease_id: lease, wait_seconds: 20 })).structuredContent.status;
    if (status !== 'ready') throw new Error(`${template} lease ${lease} ${status}`);
    return lease;
  };
  try {
    // The server's first lease pays one-time costs (store, provider, engine connection): a
    // throwaway lease first, so create → ready compares the two desktops alone.
    await call('vm_lease_release', { lease_id: await create('wayland-sway') });
    for (const [name, d] of Object.entries(DESKTOPS)) {
      const t = performance.now();
      const lease = await create(d.template);
      const ready = performance.now() - t;

      await call('vm_launch', { lease_id: lease, ...d.terminal('100x40+0+0', 'ls -la /usr/bin | head -60; sleep 3600'), wait_seconds: 10 });
      // The focused terminal swallows what is typed (cat), so typing has no side effects.
      await call('vm_launch', { lease_id: lease, ...d.terminal('90x30+560+300', 'dpkg -l | head -60; cat > /dev/null'), wait_seconds: 10 });
      await new Promise((r) => setTimeout(r, 1000));
      await call('vm_screenshot', { lease_id: lease, max_width: 1280, max_height: 800 }); // warm: channel, helper, sharp

      // Clicks land on the second terminal (right half on sway, lower right on x11): focus stays put.
      const click = await timeIt(N, (i) => call('vm_click', { lease_id: lease, x: 900 + (i % 10), y: 600, coordinate_space: 'screen' }));
      const type = await timeIt(N, () => call('vm_type', { lease_id: lease, text: 'hello ✓' }));
      let bytes = 0;
      const shot = await timeIt(Math.ceil(N / 2), async () => { const r = await call('vm_screenshot', { lease_id: lease, max_width: 1280, max_height: 800 }); bytes = r.structuredContent.bytes; });
      out[name] = { template: d.template, click: stats(click), type_7_chars: stats(type), screenshot: { ...stats(shot), png_bytes: bytes }, create_to_ready_ms: round(ready) };
    }
    return out;
  } finally {
    for (const lease of leases) await client.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } }).catch(() => undefined);
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export { run_ as run };
if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run_(), null, 2));
