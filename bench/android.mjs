// Android (the android-standin golden on the Docker provider: the real adbd 34 in a container,
// Xvfb at 1080×2400, @vmhub/adapter-android over @vmhub/channel-adb) in one run, three ways:
//   via_vmhub  — vm_click / vm_screenshot through the MCP client against the built server;
//   channel    — `input tap` / `screencap -p` as one exec each on @vmhub/channel-adb (shell
//                protocol v2 over one adb transport), the adapter's own path without MCP;
//   naive_adb  — one `adb -s <serial> shell input tap …` / `adb exec-out screencap -p` process
//                per call (what most adb MCP servers do), through the same adb server and device.
// `noop` (`true`) is the transport's own cost per call; tap and screencap add the device tools'
// (on the stand-in: a Python process plus xdotool / an XWD→PNG encode).
// Needs the golden (`vmhub-server golden build android-standin`) and `adb` on PATH.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectServer, round, runAsScript, stats, timeIt } from './lib.mjs';

const run = promisify(execFile);
const N = Number(process.env.N ?? 40);

/** adb serials attached to the default adb server now. */
async function devices() {
  const out = (await run('adb', ['devices'], { encoding: 'utf8' })).stdout;
  return out.split('\n').slice(1).map((l) => l.split('\t')).filter((p) => p[1] === 'device').map((p) => p[0]);
}

export async function run_() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-android-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ instance: 'benchand', db: join(dir, 'vmhub.db'), standin_templates: true, reaper: { autostart: false } }));
  const client = await connectServer({ VMHUB_CONFIG: config, VMHUB_STANDIN_TEMPLATES: '1' });
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
    return r;
  };
  let lease;
  let channel;
  try {
    const before = new Set(await devices().catch(() => []));
    const t0 = performance.now();
    lease = (await call('vm_lease_create', { template: 'android-standin' })).structuredContent.lease_id;
    let status = 'provisioning';
    while (['provisioning', 'starting'].includes(status)) status = (await call('vm_lease_status', { lease_id: lease, wait_seconds: 20 })).structuredContent.status;
    if (status !== 'ready') throw new Error(`lease ${lease} ${status}`);
    const ready = performance.now() - t0;
    await call('vm_launch', { lease_id: lease, app: 'com.vmhub.standin', wait_seconds: 15 });
    const full = { lease_id: lease, max_width: 1080, max_height: 2400 };
    const first = await call('vm_screenshot', full); // warm: channel, adb transport, sharp
    const { width, height } = first.structuredContent;

    // The device the server's channel attached (127.0.0.1:<forward port>).
    const serial = (await devices()).find((s) => !before.has(s));
    if (!serial) throw new Error('the lease attached no new device to the adb server on 5037');

    const tapAt = (i) => ({ x: 100 + (i % 10), y: 1900 }); // below the app's widgets: the taps change nothing
    const click = await timeIt(N, (i) => call('vm_click', { lease_id: lease, ...tapAt(i), coordinate_space: 'screen' }));
    let png = 0;
    const shot = await timeIt(Math.ceil(N / 2), async () => { png = (await call('vm_screenshot', full)).structuredContent.bytes; });

    // The channel alone (no MCP, no shaping): the same commands the adapter sends.
    const { openAdbChannel } = await import(new URL('../packages/channel-adb/dist/index.js', import.meta.url).href);
    const [host, port] = [serial.slice(0, serial.lastIndexOf(':')), Number(serial.slice(serial.lastIndexOf(':') + 1))];
    channel = await openAdbChannel({ address: { host, port } });
    const chNoop = await timeIt(N, () => channel.exec(['true']));
    const chTap = await timeIt(N, (i) => channel.exec(['input', 'tap', String(tapAt(i).x), String(tapAt(i).y)]));
    let rawPng = 0;
    const chShot = await timeIt(Math.ceil(N / 2), async () => { rawPng = (await channel.exec(['screencap', '-p'], { maxOutputBytes: 64 << 20 })).stdout.length; });

    const adb = (args) => run('adb', ['-s', serial, ...args], { maxBuffer: 64 * 1024 * 1024, encoding: 'buffer' });
    // The device tools' own cost, timed inside the container (no transport at all): one docker
    // exec running the command 10 times in a loop.
    const inside = async (cmd) => {
      const script = `s=$(date +%s%N); for i in 1 2 3 4 5 6 7 8 9 10; do ${cmd} >/dev/null; done; e=$(date +%s%N); echo $(( (e - s) / 10000000 ))`;
      return Number((await run('docker', ['exec', `vmhub-benchand-${lease}`, 'sh', '-c', script], { encoding: 'utf8' })).stdout.trim());
    };
    const floor = { tap_ms: await inside('input tap 100 1900'), screencap_ms: await inside('screencap -p') };

    const naiveNoop = await timeIt(Math.ceil(N / 2), () => adb(['shell', 'true']));
    const naiveTap = await timeIt(Math.ceil(N / 2), (i) => adb(['shell', 'input', 'tap', String(tapAt(i).x), String(tapAt(i).y)]));
    const naiveShot = await timeIt(Math.ceil(N / 4), () => adb(['exec-out', 'screencap', '-p']));

    return {
      screen: { width, height },
      create_to_ready_ms: round(ready),
      device_tools_inside_container: floor,
      via_vmhub: { click: stats(click), screenshot: { ...stats(shot), png_bytes: png } },
      channel: { noop: stats(chNoop), tap: stats(chTap), screencap: { ...stats(chShot), png_bytes: rawPng } },
      naive_adb: { noop: stats(naiveNoop), tap: stats(naiveTap), screencap: stats(naiveShot) },
    };
  } finally {
    if (lease) await client.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } }).catch(() => undefined);
    // After the release: the lease's own channel has detached the device by then.
    await channel?.close().catch(() => undefined);
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export { run_ as run };
await runAsScript(import.meta.url, run_);
