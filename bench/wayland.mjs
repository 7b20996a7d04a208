// Wayland (sway 1.7 headless, wayland-sway golden, @vmhub/adapter-hyprland) beside X11
// (debian-x11, @vmhub/adapter-x11), both on the Docker provider, through the MCP client against
// the built server, in one run: vm_click, vm_type and vm_screenshot p50/p95 at 1280×800, and
// create → ready. Both desktops show the same two terminals full of text.
import { clickTimes, leaseReady, round, runAsScript, screenshotStats, stats, timeIt, warmScreen, withBenchServer } from './lib.mjs';

const N = Number(process.env.N ?? 40);

const DESKTOPS = {
  x11: { template: 'debian-x11', terminal: (geometry, cmd) => ({ app: 'xterm', args: ['-geometry', geometry, '-e', 'sh', '-c', cmd] }) },
  // sway tiles: the two terminals split the output side by side.
  sway: { template: 'wayland-sway', terminal: (_geometry, cmd) => ({ app: 'foot', args: ['sh', '-c', cmd] }) },
};

export function run_() {
  return withBenchServer('wayland', { instance: 'benchwl', reaper: { autostart: false } }, async ({ call, leases }) => {
    const out = {};
    const create = (template) => leaseReady(call, template, (id) => leases.push(id));
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
      await warmScreen(call, lease);

      // Clicks land on the second terminal (right half on sway, lower right on x11): focus stays put.
      const click = await clickTimes(call, lease, N, 900, 600);
      const type = await timeIt(N, () => call('vm_type', { lease_id: lease, text: 'hello ✓' }));
      const shot = await screenshotStats(call, lease, Math.ceil(N / 2));
      out[name] = { template: d.template, click: stats(click), type_7_chars: stats(type), screenshot: shot, create_to_ready_ms: round(ready) };
    }
    return out;
  });
}

export { run_ as run };
await runAsScript(import.meta.url, run_);
