// Docker + X11 through the MCP client against the built server, side by side with the naive
// approach (one `docker exec` process per action, as docker-vm-mcp and mcp-qemu-vm do):
// vm_click and vm_key p50/p95, vm_screenshot p50/p95 and bytes at 1280×800, lease create → ready.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { clickTimes, floorSampler, leaseReady, percentile, round, runAsScript, screenshotStats, stats, timeIt, warmScreen, withBenchServer } from './lib.mjs';

const run = promisify(execFile);
const N = Number(process.env.N ?? 60);
const LEASES = Number(process.env.LEASES ?? 15);

export function run_() {
  return withBenchServer('desktop', { instance: 'bench' }, async ({ call, leases }) => {
    // Warm-up, not timed: the server's first create opens its engine connection and store.
    const warm = await leaseReady(call, 'debian-x11');
    const golden = JSON.parse((await run('docker', ['inspect', `vmhub-bench-${warm}`], { encoding: 'utf8' })).stdout)[0].Config.Image;
    await call('vm_lease_release', { lease_id: warm });
    const ready = [];
    // The floor for create → ready: the engine alone — `docker run` of the same golden until its
    // display and then its window manager answer (lib.mjs: polled inside the container every 10 ms).
    // Paired with vmhub's creates, one of each in turn (the order swapped every pair), so that the
    // engine's drift over the run falls on both sides alike.
    const floorRuns = floorSampler(golden, 'floor');
    for (let i = 0; i < LEASES; i++) {
      if (i % 2 === 0) await floorRuns.sample(i);
      const t = performance.now();
      await leaseReady(call, 'debian-x11', (id) => leases.push(id));
      ready.push(performance.now() - t);
      // Like the floor's containers, each is created with no other desktop of the bench alive;
      // the last one stays for the actions below.
      if (i < LEASES - 1) await call('vm_lease_release', { lease_id: leases.pop() });
      if (i % 2 === 1) await floorRuns.sample(i);
    }
    const lease = leases[0];
    const container = `vmhub-bench-${lease}`;
    // A realistic screen, not an empty desktop: two terminals full of text.
    await call('vm_launch', { lease_id: lease, app: 'xterm', args: ['-geometry', '100x40+0+0', '-e', 'sh', '-c', 'ls -la /usr/bin | head -60; sleep 3600'], wait_seconds: 10 });
    await call('vm_launch', { lease_id: lease, app: 'xterm', args: ['-geometry', '90x30+560+300', '-e', 'sh', '-c', 'dpkg -l | head -60; sleep 3600'], wait_seconds: 10 });
    await warmScreen(call, lease);

    const click = await clickTimes(call, lease, N, 600, 400);
    const key = await timeIt(N, () => call('vm_key', { lease_id: lease, keys: 'shift' }));
    const shot = await screenshotStats(call, lease, Math.ceil(N / 2));
    const jpegBytes = (await call('vm_screenshot', { lease_id: lease, format: 'jpeg' })).structuredContent.bytes;

    const dx = (argv) => run('docker', ['exec', '-u', 'user', '-e', 'DISPLAY=:0', container, ...argv], { maxBuffer: 64 * 1024 * 1024, encoding: 'buffer' });
    const naiveClick = await timeIt(Math.ceil(N / 2), (i) => dx(['xdotool', 'mousemove', String(600 + (i % 10)), '400', 'click', '1']));
    const naiveKey = await timeIt(Math.ceil(N / 2), () => dx(['xdotool', 'key', 'shift']));
    const naiveShot = await timeIt(Math.ceil(N / 4), () => dx(['xwd', '-root', '-silent']));

    const floor = floorRuns.stats();
    const readyMedian = round(percentile(ready, 50));

    return {
      floor_docker_run: floor,
      via_vmhub: { click: stats(click), key: stats(key), screenshot: { ...shot, jpeg_bytes: jpegBytes }, create_to_ready: { median_ms: readyMedian, max_ms: round(Math.max(...ready)), n: ready.length } },
      create_to_ready_over_floor: round(readyMedian / floor.until_window_manager.median_ms, 2),
      naive_docker_exec: { click: stats(naiveClick), key: stats(naiveKey), screenshot_capture_only: stats(naiveShot) },
    };
  });
}

export { run_ as run };
await runAsScript(import.meta.url, run_);
