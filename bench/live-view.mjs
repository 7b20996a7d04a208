// The live view (issues 17, 35.1): how long from an agent's action until the dashboard page
// PAINTS it. The built server runs with --http (bearer token); the agent is an MCP client over
// Streamable HTTP on a debian-x11 lease; the person is Debian's headless Chromium (playwright-core,
// no download) on /ui/leases/<id>, whose canvas is fed by the lease's stream (a WebSocket of
// changed rectangles). The agent types one character into a terminal; a listener in the page
// compares the canvas after every painted rectangle with the canvas before the action (pixels)
// and notes when the first changed one was painted. Latency = that moment − the moment before the
// agent's vm_type call (both wall clock on this machine). In the same run:
//   - the floor: one fetch of the lease's screen as the frame loop asks for it (a JPEG at the
//     page's width);
//   - before: the same page without WebSocket (the frame loop it falls back to);
//   - frames per second painted while the screen changes (a terminal scrolling output), and the
//     stream's bytes per second while the agent types into a terminal (a `ws` viewer counts them);
//   - captures per second of the lease with one viewer and with four: one capture loop serves all;
//   - the naive dashboard that reloads the whole lease page for every frame.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpServer } from '@vmhub/test-kit';
import { leaseReady, round, runAsScript, SERVER_BIN, stats, toolCaller } from './lib.mjs';

// playwright-core and ws are dependencies of apps/server (its browser tests, its stream); the bench borrows them.
const serverRequire = createRequire(new URL('../apps/server/package.json', import.meta.url));
const { chromium } = serverRequire('playwright-core');
const { WebSocket } = serverRequire('ws');
const CHROMIUM = process.env.VMHUB_CHROMIUM ?? '/usr/bin/chromium';
const N = Number(process.env.N ?? 20);
const N_NAIVE = Number(process.env.N_NAIVE ?? 8);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const startServer = (config, token) => startHttpServer({
  bin: SERVER_BIN, args: ['--host', '127.0.0.1', '--port', '0'],
  env: { PATH: process.env.PATH ?? '', ...(process.env.HOME ? { HOME: process.env.HOME } : {}), VMHUB_CONFIG: config, VMHUB_LOG_LEVEL: 'error', VMHUB_HTTP_TOKEN: token, VMHUB_TOOLSETS: 'all' },
});

/** In the page: after every painted rectangle, compare the canvas with the one before the action. */
function installWatcher() {
  const canvas = document.querySelector('#screen');
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const b = (window.__bench = { painted: 0, base: null, armed: false, changedAt: 0, lastAt: 0 });
  const grab = () => ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  const differing = (a, c) => {
    if (a.length !== c.length) return Infinity;
    let n = 0;
    for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i] - c[i]) + Math.abs(a[i + 1] - c[i + 1]) + Math.abs(a[i + 2] - c[i + 2]) > 60) n++;
    return n;
  };
  const seen = () => {
    const at = performance.timeOrigin + performance.now();
    b.painted++;
    b.lastAt = at;
    if (b.armed && b.base) {
      const n = differing(b.base, grab());
      if (n >= 8) { b.changedAt = at; b.armed = false; }
    }
  };
  // The stream's rectangles, and the frame loop's whole frames (data-frame moves).
  canvas.addEventListener('vmhub-frame', seen);
  new MutationObserver(() => { if (!canvas.hasAttribute('data-stream')) seen(); }).observe(canvas, { attributes: true, attributeFilter: ['data-images'] });
  b.arm = () => { b.base = grab(); b.armed = true; b.changedAt = 0; };
}

/** In the page: an FNV-1a hash of the canvas, once it holds a frame. */
function frameHash() {
  const c = document.querySelector('#screen');
  if (!c || !c.width || Number(c.getAttribute('data-frame')) < 1) return null;
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let h = 0x811c9dc5;
  for (let i = 0; i < d.length; i += 4) { h ^= d[i] ^ (d[i + 1] << 8) ^ (d[i + 2] << 16); h = Math.imul(h, 0x01000193); }
  return h >>> 0;
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-live-'));
  const config = join(dir, 'config.json');
  const token = `bench-${randomBytes(8).toString('hex')}`;
  writeFileSync(config, JSON.stringify({ instance: 'benchlv', db: join(dir, 'vmhub.db'), reaper: { autostart: false } }));
  const server = await startServer(config, token);
  const { base } = server;
  const client = new Client({ name: 'vmhub-bench-live', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const call = toolCaller(client);
  let browser;
  let lease;
  try {
    lease = await leaseReady(call, 'debian-x11', (id) => { lease = id; });
    const L = { lease_id: lease };
    // A terminal whose tty echoes each typed character (cat reads and discards the lines).
    const w = (await call('vm_launch', { ...L, app: 'xterm', args: ['-geometry', '100x30+40+40', '-e', 'sh', '-c', 'cat > /dev/null'], wait_seconds: 10 })).structuredContent.window;
    await call('vm_focus', { ...L, window: w.id });
    await call('vm_wait', { ...L, for: 'settle', timeout_seconds: 20 });

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless=new'] });
    const auth = { Authorization: `Bearer ${token}` };
    const streamStats = async () => (await (await fetch(`${base}/api/leases/${lease}`, { headers: auth })).json()).stream;
    /** A page on the lease, signed in; `noSocket`: without WebSocket (the frame loop). */
    const openPage = async (noSocket = false) => {
      const ctx = await browser.newContext({ viewport: { width: 1600, height: 1100 } });
      if (noSocket) await ctx.addInitScript(() => { delete window.WebSocket; });
      const p = await ctx.newPage();
      await p.goto(`${base}/ui/?token=${token}`);
      await p.goto(`${base}/ui/leases/${lease}`);
      await p.waitForFunction((streamed) => { const c = document.querySelector('#screen'); return Number(c?.getAttribute('data-frame')) >= 1 && (!streamed || c.getAttribute('data-stream') === 'open'); }, !noSocket, { timeout: 20_000 });
      await p.evaluate(installWatcher);
      return p;
    };
    /** Action → changed pixels painted in `p`, N times (after 2 warm-ups). */
    const measure = async (p) => {
      const latency = [];
      const typeCall = [];
      const missed = [];
      for (let i = 0; i < N + 2; i++) {
        // Settle: nothing painted for 300 ms, so the baseline shows the last character.
        await p.waitForFunction(() => performance.timeOrigin + performance.now() - window.__bench.lastAt > 300, undefined, { timeout: 10_000, polling: 20 });
        await p.evaluate(() => window.__bench.arm());
        const t0 = now();
        await call('vm_type', { ...L, text: 'x' });
        const t1 = now();
        const seen = await p.waitForFunction(() => window.__bench.changedAt || undefined, undefined, { timeout: 10_000, polling: 5 }).then((h) => h.jsonValue()).catch(() => undefined);
        if (i < 2) continue; // warm-up: channel, helper, the recorder's first capture
        typeCall.push(t1 - t0);
        if (seen) latency.push(seen - t0); else missed.push(i);
      }
      return { latency, typeCall, missed };
    };

    const page = await openPage();
    // An idle screen: what the stream sends and captures in 3 s.
    const idle0 = await streamStats();
    const painted0 = await page.evaluate(() => window.__bench.painted);
    await sleep(3000);
    const idle1 = await streamStats();
    const idle = { rectangles_painted_per_second: round(((await page.evaluate(() => window.__bench.painted)) - painted0) / 3), captures_per_second: round((idle1.captures - idle0.captures) / 3) };

    const streamed = await measure(page);

    // Typing into a terminal: the stream's bytes as a second viewer receives them.
    const listen = () => new Promise((resolve, reject) => {
      const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/leases/${lease}/stream?max_width=1120`, { headers: auth });
      const tally = { bytes: 0, messages: 0 };
      ws.on('message', (d, binary) => { if (binary) { tally.bytes += d.length; tally.messages++; } });
      ws.once('open', () => resolve({ ws, tally }));
      ws.once('error', reject);
    });
    const typing = await listen();
    await sleep(1000);
    const typed0 = { ...typing.tally };
    const typeStart = now();
    for (let i = 0; i < 40; i++) { await call('vm_type', { ...L, text: 'abcdefghij'[i % 10] }); await sleep(100); }
    const typeSeconds = (now() - typeStart) / 1000;
    const typingRate = { chars_per_second: round(40 / typeSeconds), mbit_per_second: round(((typing.tally.bytes - typed0.bytes) * 8) / typeSeconds / 1e6, 3), rectangles_per_second: round((typing.tally.messages - typed0.messages) / typeSeconds) };

    // A screen that keeps changing: a terminal printing without pause. Painted per second in the
    // page; the lease's captures per second with the page alone and with three more viewers.
    const scroller = (await call('vm_launch', { ...L, app: 'xterm', args: ['-geometry', '100x30+300+200', '-e', 'sh', '-c', 'while :; do ls -la /usr/bin; done'], wait_seconds: 10 })).structuredContent.window;
    typing.ws.close();
    await sleep(1500);
    const window3s = async () => {
      const s0 = await streamStats();
      const p0 = await page.evaluate(() => window.__bench.painted);
      await sleep(3000);
      const s1 = await streamStats();
      return { painted_per_second: round(((await page.evaluate(() => window.__bench.painted)) - p0) / 3), captures_per_second: round((s1.captures - s0.captures) / 3), sent_per_second: round((s1.frames_sent - s0.frames_sent) / 3), viewers: s1.viewers };
    };
    const changingOne = await window3s();
    const more = await Promise.all([0, 1, 2].map(() => listen()));
    await sleep(500);
    const changingFour = await window3s();
    for (const m of more) m.ws.close();
    await call('vm_close', { ...L, window: scroller.id }).catch(() => undefined);
    await sleep(1000);

    // Before: the same page without WebSocket, on the frame loop it falls back to.
    const fallback = await openPage(true);
    await page.close();
    const polled = await measure(fallback);
    await fallback.close();

    // The floor: one fetch of the screen as the frame loop asks for it (no page open).
    const floorUrl = `${base}/api/leases/${lease}/screen?format=jpeg&max_width=1120`;
    const floor = [];
    let bytes = 0;
    for (let i = 0; i < N; i++) {
      const t = now();
      const r = await fetch(floorUrl, { headers: auth });
      bytes = (await r.arrayBuffer()).byteLength;
      floor.push(now() - t);
    }

    // The naive way: reload the whole lease page until a load shows the change.
    const naive = [];
    const naivePage = await (await browser.newContext({ viewport: { width: 1600, height: 1100 } })).newPage();
    await naivePage.goto(`${base}/ui/?token=${token}`);
    await naivePage.goto(`${base}/ui/leases/${lease}`);
    const load = async () => { await naivePage.reload(); return (await naivePage.waitForFunction(frameHash, undefined, { timeout: 10_000, polling: 5 })).jsonValue(); };
    for (let i = 0; i < N_NAIVE; i++) {
      await sleep(300);
      const before = await load();
      const t0 = now();
      await call('vm_type', { ...L, text: 'y' });
      for (let tries = 0; tries < 50; tries++) {
        if ((await load()) !== before) { naive.push(now() - t0); break; }
      }
    }
    const reload = [];
    for (let i = 0; i < 5; i++) { const t = now(); await load(); reload.push(now() - t); }
    const streamedStats = { ...stats(streamed.latency), missed: streamed.missed.length };
    const floorStats = { ...stats(floor), bytes };

    return {
      setup: 'debian-x11 on Docker, 1280×800; an xterm echoing typed characters; Chromium headless (Debian), viewport 1600×1100 (frames 1120 wide); agent = MCP client over Streamable HTTP',
      load_average_1min: round(loadavg()[0], 2),
      targets: { action_to_painted_p50_over_floor: 1.5, frames_per_second_while_changing: 20, typing_mbit_per_second: 2 },
      action_to_painted_in_page_stream: streamedStats,
      action_to_painted_p50_over_floor: round(streamedStats.p50_ms / floorStats.p50_ms, 2),
      before_frame_loop_action_to_painted: { ...stats(polled.latency), missed: polled.missed.length },
      floor_one_screen_fetch: floorStats,
      agent_vm_type_call: stats(streamed.typeCall),
      idle_screen: idle,
      typing_into_terminal: typingRate,
      screen_changing: { one_viewer: changingOne, four_viewers: changingFour },
      naive_reload_page_per_frame: { action_to_visible: stats(naive), one_full_reload_to_first_frame: stats(reload) },
    };
  } finally {
    await browser?.close().catch(() => undefined);
    if (lease) await client.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } }).catch(() => undefined);
    await client.close().catch(() => undefined);
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await runAsScript(import.meta.url, run);
