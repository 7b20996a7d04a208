// Screenshots on one QEMU guest (tiny-console golden, TCG) four ways, in one run, through the
// provider and @vmhub/rfb directly (no MCP server: the console adapter does not use VNC yet):
//   - qmp_screendump: ConsoleHandle.screendump() — QEMU writes a PNG into the state dir, read back
//     (what the console adapter's vm_screenshot does today);
//   - vnc_live: RfbClient.screenshot() on a connection kept open — a copy of the framebuffer that
//     incremental updates keep current (what an adapter holding the lease's VNC session does);
//   - vnc_fresh: screenshot({fresh: true}) — a full-screen update requested and waited for;
//   - vnc_naive: a new VNC connection per shot (openVnc + handshake + first full update + close);
//   - floor: copying a frame-sized buffer, the least any in-process screenshot costs;
//   - vnc_key_then_sync: a key press, then RfbClient.sync() (QEMU has read the key when it returns);
//   - vnc_update_after_key: after the screen sat idle, the time from typing a key until QEMU's
//     next update arrives (how far behind the live framebuffer can be).
// VNC shots are raw RGBA; the screendump is a PNG (encoding included, as the adapter gets it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile, round, runAsScript, stats, timeIt } from './lib.mjs';
import qemu, { buildTinyConsoleGolden, tinyConsoleTemplate } from '../packages/provider-qemu/dist/index.js';
import { connectRfb } from '../packages/rfb/dist/index.js';

const N = Number(process.env.N ?? 40);

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-vnc-'));
  const prefix = `vmhub-benchvnc-${process.pid}-`;
  const provider = qemu.create({ state_dir: join(dir, 'state') }, { identityPrefix: prefix, log: () => {} });
  let machine;
  let con;
  let rfb;
  try {
    await buildTinyConsoleGolden({ dir: join(dir, 'golden') });
    const template = tinyConsoleTemplate(join(dir, 'golden'));
    const identity = `${prefix}1`;
    machine = await provider.create({ lease_id: 'bench-vnc', identity, template, signal: AbortSignal.timeout(60_000) });
    await provider.ready(machine, { template, signal: AbortSignal.timeout(300_000), stage: () => {} });
    con = await provider.console(machine);

    const { socket, password } = await con.openVnc();
    rfb = await connectRfb(socket, { password });
    // Some text on the console, so neither path measures an empty screen.
    await rfb.typeText('ls -la /bin | head -20\n');
    await new Promise((r) => setTimeout(r, 2000));
    await rfb.screenshot({ fresh: true });
    await con.screendump(); // warm

    let pngBytes = 0;
    const screendump = await timeIt(N, async () => { pngBytes = (await con.screendump()).data.length; });
    const live = await timeIt(N * 5, () => rfb.screenshot());
    let stale = 0;
    const fresh = await timeIt(N, async () => { if (!(await rfb.screenshot({ fresh: true })).fresh) stale++; });
    const naive = await timeIt(Math.ceil(N / 2), async () => {
      const v = await con.openVnc();
      const c = await connectRfb(v.socket, { password: v.password });
      await c.screenshot();
      await c.close();
    });
    // How stale the live framebuffer can be: after the screen sat idle, a key is typed and the
    // time until the next update arrives is measured. QEMU scans its display on a timer that
    // starts at 30 ms and grows by 50 ms per idle scan up to 3 s (ui/vnc.c vnc_refresh).
    const lag = [];
    const lit = () => {
      const d = rfb.framebuffer().data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] + d[i + 1] + d[i + 2] > 300) n++;
      return n;
    };
    for (const idleMs of [100, 1000, 3000]) {
      for (let i = 0; i < 3; i++) {
        await new Promise((r) => setTimeout(r, idleMs));
        // Eight glyphs (~150 lit pixels) so a blinking cursor (~18) is not taken for the change.
        const before = lit();
        const shown = new Promise((ok) => {
          const check = () => { if (lit() - before > 100) { rfb.off('update', check); ok(); } };
          rfb.on('update', check);
        });
        await rfb.typeText('xxxxxxxx');
        const t = performance.now();
        await shown;
        lag.push({ idleMs, ms: performance.now() - t });
      }
    }
    await rfb.keyCombo('ctrl+u');
    // sync(): a 1x1 update request answered after QEMU read everything sent before it.
    const sync = await timeIt(N, async () => { await rfb.keyPress(0xffe1); await rfb.sync(); });
    const frame = rfb.framebuffer();
    const floor = await timeIt(N * 5, () => { Buffer.from(frame.data); });
    return {
      screen: `${rfb.width}x${rfb.height}`,
      qmp_screendump_png: { ...stats(screendump, 2), png_bytes: pngBytes },
      vnc_live_framebuffer: { ...stats(live, 2), rgba_bytes: frame.data.length },
      vnc_fresh_full_update: { ...stats(fresh, 2), fell_back_to_latest: stale },
      vnc_naive_new_connection_per_shot: stats(naive, 2),
      floor_copy_frame_buffer: stats(floor, 2),
      vnc_key_then_sync: stats(sync, 2),
      vnc_update_after_key: Object.fromEntries([100, 1000, 3000].map((idle) => [`idle_${idle}_ms`, { p50_ms: round(percentile(lag.filter((l) => l.idleMs === idle).map((l) => l.ms), 50), 1), n: 3 }])),
      encodings_received: rfb.stats().rects,
      accel: String(machine.details?.accel ?? 'unknown'),
    };
  } finally {
    await rfb?.close();
    await con?.close();
    if (machine) await provider.destroy(machine).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

await runAsScript(import.meta.url, run);
