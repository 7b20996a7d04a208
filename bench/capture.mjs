// vm_screenshot at the floor (issue 19, item 1) on Docker + X11, at 1280×800 and 2560×1440
// screens, called as agents call it (defaults: PNG fitted to 1280×800):
//   - via vmhub, framebuffer path: the adapter reads Xvfb's -fbdir file from the host tmpfs;
//   - via vmhub, guest path: `xwd | gzip -1` in the guest through the exec helper (the way
//     before; adapter_options.screenshot_framebuffer: false on an otherwise equal template);
//   - the floor, in this process with no MCP: one read of the same file, the same XWD decode
//     and the same encoder vm_screenshot uses — with each phase timed on its own.
// The screen is realistic (terminals full of text), the same for all three. On the framebuffer
// path, incremental frames too: vm_screenshot {changed_only} after typing, and with no change; and
// the whole screen right after typing (the first rows ask a screen that stands still, which the
// session answers from its last frame after one read and compare).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { leaseReady, percentile, round, runAsScript, stats, timeIt, withBenchServer } from './lib.mjs';

const N = Number(process.env.N ?? 40);
const root = fileURLToPath(new URL('..', import.meta.url));
const { xwdToRgb } = await import(pathToFileURL(join(root, 'packages/adapter-x11/dist/xwd.js')).href);
const { shapeScreenshot } = await import(pathToFileURL(join(root, 'packages/core/dist/screenshot.js')).href);
const { debianX11Template } = await import(pathToFileURL(createRequire(join(root, 'apps/server/package.json')).resolve('@vmhub/provider-docker')).href);

const SIZES = [
  { name: '1280x800', screen: '1280x800x24', width: 1280, height: 800 },
  { name: '2560x1440', screen: '2560x1440x24', width: 2560, height: 1440 },
];

function templates() {
  const out = [];
  for (const s of SIZES) {
    for (const path of ['fb', 'guest']) {
      out.push({
        ...debianX11Template,
        id: `capture-${s.name}-${path}`,
        provider_options: { screen: s.screen },
        ...(path === 'guest' ? { adapter_options: { screenshot_framebuffer: false } } : {}),
      });
    }
  }
  return out;
}

export function run() {
  return withBenchServer('capture', { instance: 'capture', templates: templates() }, async ({ call, leases }) => {
    const result = {};
    for (const s of SIZES) {
      const row = {};
      for (const path of ['fb', 'guest']) {
        const lease = await leaseReady(call, `capture-${s.name}-${path}`, (id) => leases.push(id));
        // Text on most of the screen: terminals sized to the screen.
        const cols = Math.floor(s.width / 6 / 2) - 2, lines = Math.floor(s.height / 13) - 4;
        await call('vm_launch', { lease_id: lease, app: 'xterm', args: ['-geometry', `${cols}x${lines}+0+0`, '-e', 'sh', '-c', 'ls -la /usr/bin | head -200; sleep 3600'], wait_seconds: 10 });
        await call('vm_launch', { lease_id: lease, app: 'xterm', args: ['-geometry', `${cols}x${lines}-0+0`, '-e', 'sh', '-c', 'dpkg -l | head -200; sleep 3600'], wait_seconds: 10 });
        await new Promise((r) => setTimeout(r, 1000));
        let bytes = 0;
        // As agents call it: the defaults (PNG fitted to 1280×800, so 2560×1440 goes out at 1280×720).
        const shot = () => call('vm_screenshot', { lease_id: lease }).then((r) => { bytes = r.structuredContent.bytes; });
        await shot(); // warm: channel, helper, sharp
        row[path === 'fb' ? 'via_vmhub_framebuffer' : 'via_vmhub_guest_xwd_gzip'] = { ...stats(await timeIt(N, shot)), png_bytes: bytes };
        if (path === 'fb') {
          const file = `/dev/shm/vmhub-fb-${process.getuid()}/vmhub-capture-${lease}/screen/Xvfb_screen0`;
          const read = [], decode = [], encode = [], total = [];
          for (let i = 0; i < N; i++) {
            const t0 = performance.now();
            const dump = readFileSync(file);
            const t1 = performance.now();
            const frame = xwdToRgb(dump);
            const t2 = performance.now();
            await shapeScreenshot({ data: frame.data, format: 'rgb', width: frame.width, height: frame.height });
            const t3 = performance.now();
            read.push(t1 - t0); decode.push(t2 - t1); encode.push(t3 - t2); total.push(t3 - t0);
          }
          row.floor_read_decode_encode_in_process = { ...stats(total), read_p50_ms: round(percentile(read, 50)), decode_p50_ms: round(percentile(decode, 50)), encode_p50_ms: round(percentile(encode, 50)) };
          // Incremental frames: type two characters into a small terminal, then ask only for what
          // changed (the typing and its rendering are not timed); and ask again with nothing changed.
          const typer = (await call('vm_launch', { lease_id: lease, app: 'xterm', args: ['-geometry', '40x5+300+300', '-e', 'cat'], wait_seconds: 10 })).structuredContent.window;
          await call('vm_focus', { lease_id: lease, window: typer.id });
          await new Promise((r) => setTimeout(r, 500));
          await call('vm_screenshot', { lease_id: lease, changed_only: true });
          const inc = [], incBytes = [], boxes = [];
          for (let i = 0; i < N; i++) {
            await call('vm_type', { lease_id: lease, text: 'ab' });
            await new Promise((r) => setTimeout(r, 150));
            const t = performance.now();
            const r = (await call('vm_screenshot', { lease_id: lease, changed_only: true })).structuredContent;
            inc.push(performance.now() - t);
            incBytes.push(r.bytes);
            boxes.push(`${Math.round(r.width / r.scale)}x${Math.round(r.height / r.scale)}`);
          }
          row.changed_only_after_typing = { ...stats(inc), png_bytes_p50: percentile(incBytes, 50), typical_box: boxes[Math.floor(boxes.length / 2)] };
          // The whole screen right after a change: no frame of this session to reuse, so read
          // twice, decode and encode (the rows above it ask a screen that stood still).
          const fresh = [];
          for (let i = 0; i < N; i++) {
            await call('vm_type', { lease_id: lease, text: 'ab' });
            await new Promise((r) => setTimeout(r, 150));
            const t = performance.now();
            await shot();
            fresh.push(performance.now() - t);
          }
          row.via_vmhub_framebuffer_after_typing = { ...stats(fresh), png_bytes: bytes };
          row.changed_only_unchanged = stats(await timeIt(N, () => call('vm_screenshot', { lease_id: lease, changed_only: true })));
        }
        await call('vm_lease_release', { lease_id: lease });
      }
      result[s.name] = row;
    }
    return result;
  });
}

await runAsScript(import.meta.url, run);
