// Android (the android-standin golden on the Docker provider: the real adbd 34 in a container,
// Xvfb at 1080×2400, @vmhub/adapter-android over @vmhub/channel-adb) in one run, three ways:
//   via_vmhub  — vm_click / vm_screenshot through the MCP client against the built server;
//   channel    — `input tap` / `screencap -p` as one exec each on @vmhub/channel-adb (shell
//                protocol v2 over one adb transport), the adapter's own path without MCP;
//   naive_adb  — one `adb -s <serial> shell input tap …` / `adb exec-out screencap -p` process
//                per call (what most adb MCP servers do), through the same adb server and device.
// `noop` (`true`) is the transport's own cost per call; tap and screencap add the device tools'
// (on the stand-in: a Python process plus xdotool / an XWD→PNG encode).
// Screenshots (issue 35.4), interleaved round by round so load swings hit all alike:
//   floor        — the device's own `screencap -p`, timed inside the container (no transport);
//                  ratios divide by its p50 less what the timing itself costs there (`:` timed);
//                  two a round, from one docker exec of three (the first shares the CPU with the exec's start);
//   pass_through — vm_screenshot whose box holds the whole screen: the device's PNG as it came;
//   shaped       — the same image asked as a region that is the whole screen: decoded and
//                  re-encoded by core (every full-size screenshot before issue 35.4);
//   raw_channel  — `screencap` without -p (raw RGBA, 16-byte header) on the channel: the
//                  framebuffer path, for the transfer it costs here (10 MB per frame).
// `default_box` is vm_screenshot at the default 1280×800 box (a real downscale), for reference.
// The machine's load (/proc/loadavg) is written before and after.
// Needs the golden (`vmhub-server golden build android-standin`) and `adb` on PATH.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectServer, round, stats, timeIt, writeResultsSection } from './lib.mjs';

const run = promisify(execFile);
const N = Number(process.env.N ?? 40);

const CHANNEL_ADB = new URL('../packages/channel-adb/dist/index.js', import.meta.url).href;
/** The adb server the lease's channel attaches to: vmhub's private one (a unix socket). */
const ADB_SERVER = ['-L', `localfilesystem:${(await import(CHANNEL_ADB)).privateAdbSocket()}`];

/** adb serials attached to vmhub's adb server now. */
async function devices() {
  const out = (await run('adb', [...ADB_SERVER, 'devices'], { encoding: 'utf8' })).stdout;
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

    // The device the server's channel attached (localfilesystem:<forward socket>).
    const serial = (await devices()).find((s) => !before.has(s));
    if (!serial) throw new Error('the lease attached no new device to vmhub\'s adb server');

    const tapAt = (i) => ({ x: 100 + (i % 10), y: 1900 }); // below the app's widgets: the taps change nothing
    const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
    const loadBefore = load();
    const click = await timeIt(N, (i) => call('vm_click', { lease_id: lease, ...tapAt(i), coordinate_space: 'screen' }));

    // The channel alone (no MCP, no shaping): the same commands the adapter sends.
    const { openAdbChannel } = await import(CHANNEL_ADB);
    const address = serial.startsWith('localfilesystem:') ? { path: serial.slice('localfilesystem:'.length) } : { host: serial.slice(0, serial.lastIndexOf(':')), port: Number(serial.slice(serial.lastIndexOf(':') + 1)) };
    channel = await openAdbChannel({ address });
    const chNoop = await timeIt(N, () => channel.exec(['true']));
    const chTap = await timeIt(N, (i) => channel.exec(['input', 'tap', String(tapAt(i).x), String(tapAt(i).y)]));

    // The device's own capture, timed inside the container (no transport at all): one docker exec
    // running the command `n` times, each timed by the clock in there.
    const inside = async (cmd, n) => {
      const script = `for i in $(seq ${n}); do s=$(date +%s%N); ${cmd} >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000 )); done`;
      return (await run('docker', ['exec', `vmhub-benchand-${lease}`, 'sh', '-c', script], { encoding: 'utf8' })).stdout.trim().split('\n').map((us) => Number(us) / 1000);
    };
    const floorTap = await inside('input tap 100 1900', 10);
    // What the timing itself adds (two `date` processes around a shell builtin).
    const clock = stats(await inside(':', 10));

    const whole = { x: 0, y: 0, width, height };
    const shots = { floor: [], channel: [], pass_through: [], shaped: [], raw_channel: [], default_box: [] };
    const bytes = {};
    const time = async (name, fn) => { const t = performance.now(); const r = await fn(); shots[name].push(performance.now() - t); return r; };
    for (let i = 0; i < Math.ceil(N / 2); i++) {
      // Three in one exec, the first dropped: it shares the CPU with docker exec's own start.
      shots.floor.push(...(await inside('screencap -p', 3)).slice(1));
      bytes.channel = (await time('channel', () => channel.exec(['screencap', '-p'], { maxOutputBytes: 64 << 20 }))).stdout.length;
      bytes.pass_through = (await time('pass_through', () => call('vm_screenshot', full))).structuredContent.bytes;
      bytes.shaped = (await time('shaped', () => call('vm_screenshot', { ...full, region: whole }))).structuredContent.bytes;
      if (i % 2 === 0) bytes.raw_channel = (await time('raw_channel', () => channel.exec(['screencap'], { maxOutputBytes: 64 << 20 }))).stdout.length;
      if (i % 2 === 0) bytes.default_box = (await time('default_box', () => call('vm_screenshot', { lease_id: lease }))).structuredContent.bytes;
    }
    const p50 = (name) => stats(shots[name]).p50_ms;
    // Against the floor less the clock's own cost: the stricter ratio.
    const ratio = (name) => round(p50(name) / (p50('floor') - clock.p50_ms), 2);

    const adb = (args) => run('adb', [...ADB_SERVER, '-s', serial, ...args], { maxBuffer: 64 * 1024 * 1024, encoding: 'buffer' });
    const naiveNoop = await timeIt(Math.ceil(N / 2), () => adb(['shell', 'true']));
    const naiveTap = await timeIt(Math.ceil(N / 2), (i) => adb(['shell', 'input', 'tap', String(tapAt(i).x), String(tapAt(i).y)]));
    const naiveShot = await timeIt(Math.ceil(N / 4), () => adb(['exec-out', 'screencap', '-p']));

    return {
      screen: { width, height },
      create_to_ready_ms: round(ready),
      load_before: loadBefore,
      screenshot_1080x2400: {
        floor_device_screencap_p: { ...stats(shots.floor), clock_overhead_p50_ms: clock.p50_ms, net_p50_ms: round(p50('floor') - clock.p50_ms) },
        pass_through_via_vmhub: { ...stats(shots.pass_through), png_bytes: bytes.pass_through, ratio_to_floor: ratio('pass_through') },
        shaped_via_vmhub_decode_reencode: { ...stats(shots.shaped), png_bytes: bytes.shaped, ratio_to_floor: ratio('shaped') },
        channel_screencap_p: { ...stats(shots.channel), png_bytes: bytes.channel, ratio_to_floor: ratio('channel') },
        raw_channel_screencap: { ...stats(shots.raw_channel), bytes: bytes.raw_channel, ratio_to_floor: ratio('raw_channel') },
        default_box_1280x800_via_vmhub: { ...stats(shots.default_box), png_bytes: bytes.default_box },
      },
      device_tap_inside_container: stats(floorTap),
      via_vmhub: { click: stats(click) },
      channel: { noop: stats(chNoop), tap: stats(chTap) },
      naive_adb: { noop: stats(naiveNoop), tap: stats(naiveTap), screencap: stats(naiveShot) },
      load_after: load(),
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

// Run by itself (`node bench/android.mjs`): print the figures and write this section of RESULTS.md
// alone (bench/run.mjs rewrites the whole file from its own list of sections).
if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  const figures = await run_();
  console.log(JSON.stringify(figures, null, 2));
  writeResultsSection({
    name: 'android',
    title: 'Android over adb (stand-in: real adbd) vs a per-call `adb shell` (issue 12)',
    targets: 'screencap p50 ≤ 150 ms at 1080×2400 (cua reports 519 ms per ADB screenshot); tap p50 reported beside the naive way; vm_screenshot of the whole 1080×2400 screen p50 ≤ 1.1× the device\'s own `screencap -p` in the same run (issue 35.4)',
    figures, seconds: (Date.now() - started) / 1000, command: 'node bench/android.mjs',
  });
}
