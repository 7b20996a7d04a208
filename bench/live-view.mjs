// Issue 17's live view: how long from an agent's action until the dashboard page SHOWS it. The
// built server runs with --http (bearer token); the agent is an MCP client over Streamable HTTP on
// a debian-x11 lease; the person is Debian's headless Chromium (playwright-core, no download) on
// /ui/leases/<id>. The agent types one character into a terminal; a load listener in the page
// compares every frame #screen loads against the frame before the action (pixels, in a canvas)
// and notes when the first changed one loaded. Latency = that moment − the moment before the
// agent's vm_type call (both wall clock on this machine). Beside it: the floor (one fetch of the
// screen URL the page itself requests), the page's frame rate, and the naive dashboard that
// reloads the whole lease page for every frame.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpServer } from '@vmhub/test-kit';
import { leaseReady, round, runAsScript, SERVER_BIN, stats, toolCaller } from './lib.mjs';

// playwright-core is a devDependency of apps/server (its browser tests); the bench borrows it.
const { chromium } = createRequire(new URL('../apps/server/package.json', import.meta.url))('playwright-core');
const CHROMIUM = process.env.VMHUB_CHROMIUM ?? '/usr/bin/chromium';
const N = Number(process.env.N ?? 20);
const N_NAIVE = Number(process.env.N_NAIVE ?? 8);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const startServer = (config, token) => startHttpServer({
  bin: SERVER_BIN, args: ['--host', '127.0.0.1', '--port', '0'],
  env: { PATH: process.env.PATH ?? '', ...(process.env.HOME ? { HOME: process.env.HOME } : {}), VMHUB_CONFIG: config, VMHUB_LOG_LEVEL: 'error', VMHUB_HTTP_TOKEN: token, VMHUB_TOOLSETS: 'all' },
});

/** In the page: on every #screen load, compare its pixels with the frame before the action. */
function installWatcher() {
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  const b = (window.__bench = { frames: 0, last: null, base: null, armed: false, changedAt: 0, changedPixels: 0 });
  const grab = (img) => {
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    ctx.drawImage(img, 0, 0);
    return ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  };
  const differing = (a, c) => {
    if (a.length !== c.length) return Infinity;
    let n = 0;
    for (let i = 0; i < a.length; i += 4) if (Math.abs(a[i] - c[i]) + Math.abs(a[i + 1] - c[i + 1]) + Math.abs(a[i + 2] - c[i + 2]) > 60) n++;
    return n;
  };
  // Capture phase on the document: load does not bubble, and the page may replace the element.
  document.addEventListener('load', (e) => {
    const img = e.target;
    if (!img || img.id !== 'screen' || !img.naturalWidth) return;
    const at = performance.timeOrigin + performance.now();
    b.frames++;
    const px = grab(img);
    if (b.armed && b.base) {
      const n = differing(b.base, px);
      if (n >= 8) { b.changedAt = at; b.changedPixels = n; b.armed = false; }
    }
    b.last = px;
  }, true);
  b.arm = () => { b.base = b.last; b.armed = true; b.changedAt = 0; };
}

/** In the page: an FNV-1a hash of the #screen frame's pixels, once it has loaded one. */
function frameHash() {
  const img = document.querySelector('#screen');
  if (!img || !img.complete || !img.naturalWidth) return null;
  const canvas = document.createElement('canvas');
  canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
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
    const page = await (await browser.newContext({ viewport: { width: 1600, height: 1100 } })).newPage();
    let screenUrl = '';
    page.on('request', (req) => { if (!screenUrl && new URL(req.url()).pathname === `/api/leases/${lease}/screen`) screenUrl = req.url(); });
    await page.goto(`${base}/ui/?token=${token}`);
    await page.goto(`${base}/ui/leases/${lease}`);
    await page.evaluate(installWatcher);
    // Frame answers the page applied (data-frame): images loaded, and "unchanged" answers (204 to
    // ?since=, when the screen is what the page shows); __bench.frames counts images loaded.
    await page.waitForFunction(() => Number(document.querySelector('#screen')?.getAttribute('data-frame')) >= 3, undefined, { timeout: 20_000 });

    // The page's frame rate on an idle screen: answers, and images (none when nothing changes).
    const answers = () => page.evaluate(() => Number(document.querySelector('#screen')?.getAttribute('data-frame')));
    const f0 = await answers();
    const i0 = await page.evaluate(() => window.__bench.frames);
    await sleep(5000);
    const fps = ((await answers()) - f0) / 5;
    const imagesPerSecondIdle = ((await page.evaluate(() => window.__bench.frames)) - i0) / 5;

    const latency = [];
    const typeCall = [];
    const missed = [];
    for (let i = 0; i < N + 2; i++) {
      // Settle: two more frames after the last change, so the baseline shows the last character.
      const f = await answers();
      await page.waitForFunction((n) => Number(document.querySelector('#screen')?.getAttribute('data-frame')) >= n + 2, f, { timeout: 10_000 });
      await sleep(200);
      await page.evaluate(() => window.__bench.arm());
      const t0 = now();
      await call('vm_type', { ...L, text: 'x' });
      const t1 = now();
      const seen = await page.waitForFunction(() => window.__bench.changedAt || undefined, undefined, { timeout: 10_000, polling: 5 }).then((h) => h.jsonValue()).catch(() => undefined);
      if (i < 2) continue; // warm-up: channel, helper, the recorder's first capture
      typeCall.push(t1 - t0);
      if (seen) latency.push(seen - t0); else missed.push(i);
    }

    // The floor: one fetch of the very screen URL the page requests, with the bearer (the page
    // closed, so its own frame loop does not compete).
    await page.goto('about:blank');
    const floorUrl = screenUrl || `${base}/api/leases/${lease}/screen`;
    const floor = [];
    let bytes = 0;
    let tag = '';
    for (let i = 0; i < N; i++) {
      const t = now();
      const r = await fetch(floorUrl, { headers: { Authorization: `Bearer ${token}` } });
      bytes = (await r.arrayBuffer()).byteLength;
      floor.push(now() - t);
      tag = r.headers.get('x-frame') ?? '';
    }
    // What the page's loop costs on a screen that did not change: the same request with
    // ?since=<X-Frame of the last image> → 204, no image.
    const unchanged = [];
    let unchangedStatus = 0;
    for (let i = 0; i < N; i++) {
      const t = now();
      const u = new URL(floorUrl);
      u.searchParams.set('since', tag);
      const r = await fetch(u, { headers: { Authorization: `Bearer ${token}` } });
      await r.arrayBuffer();
      unchanged.push(now() - t);
      unchangedStatus = r.status;
    }

    // The naive way: reload the whole lease page until a load shows the change.
    const naive = [];
    await page.goto(`${base}/ui/leases/${lease}`);
    const load = async () => { await page.reload(); return (await page.waitForFunction(frameHash, undefined, { timeout: 10_000, polling: 5 })).jsonValue(); };
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

    return {
      setup: 'debian-x11 on Docker, 1280×800; an xterm echoing typed characters; Chromium headless (Debian), viewport 1600×1100; agent = MCP client over Streamable HTTP',
      page_screen_request: screenUrl ? new URL(screenUrl).pathname.replace(lease, '{id}') + new URL(screenUrl).search : 'not seen',
      page_frames_per_second_idle: round(fps),
      page_images_per_second_idle: round(imagesPerSecondIdle),
      action_to_visible_in_page: { ...stats(latency), missed: missed.length },
      agent_vm_type_call: stats(typeCall),
      floor_one_screen_fetch: { ...stats(floor), bytes },
      unchanged_screen_fetch: { ...stats(unchanged), status: unchangedStatus, bytes: 0 },
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
