// Shared helpers for the benchmarks: percentiles and timings, a client on the built server
// binary, and the sections of RESULTS.md.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { POOL_PRINCIPAL, Store } from '@vmhub/store';

export const SERVER_BIN = process.env.VMHUB_SERVER_BIN ?? fileURLToPath(new URL('../apps/server/dist/bin.js', import.meta.url));

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

/** p50 and p95 of `times` (ms, rounded to `digits`) and how many there are. */
export function stats(times, digits = 1) {
  return { p50_ms: round(percentile(times, 50), digits), p95_ms: round(percentile(times, 95), digits), n: times.length };
}

/** Median and maximum of `times` (ms) and how many: for a few slow samples (create → ready). */
export function spread(times) {
  return { median_ms: round(percentile(times, 50)), max_ms: round(Math.max(...times)), n: times.length };
}

/** Runs `fn(i)` `n` times, one after another; the milliseconds each run took. */
export async function timeIt(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    times.push(performance.now() - t);
  }
  return times;
}

export async function connectServer(env = {}) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER_BIN], env: { PATH: process.env.PATH, HOME: process.env.HOME, VMHUB_LOG_LEVEL: 'error', VMHUB_TOOLSETS: 'all', ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'vmhub-bench', version: '1' });
  await client.connect(transport);
  return client;
}

/** A tool caller on a connected client: an error result throws, naming the tool and its payload. */
export function toolCaller(client) {
  return async (name, args = {}) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
    return r;
  };
}

const FIT = { max_width: 1280, max_height: 800 };

/** A second for the screen to settle, then one untimed vm_screenshot (`args`, default fitted to 1280×800): it warms the channel, the capture helper and sharp. */
export async function warmScreen(call, lease, args = FIT) {
  await new Promise((r) => setTimeout(r, 1000));
  await call('vm_screenshot', { lease_id: lease, ...args });
}

/** `n` timed vm_screenshot calls on `lease` with `args` (default fitted to 1280×800): their stats and the last PNG's bytes. */
export async function screenshotStats(call, lease, n, args = FIT) {
  let bytes = 0;
  const times = await timeIt(n, async () => { bytes = (await call('vm_screenshot', { lease_id: lease, ...args })).structuredContent.bytes; });
  return { ...stats(times), png_bytes: bytes };
}

/** `n` timed vm_click calls on `lease` at (x + i % 10, y), screen pixels: the milliseconds each took. */
export function clickTimes(call, lease, n, x, y) {
  return timeIt(n, (i) => call('vm_click', { lease_id: lease, x: x + (i % 10), y, coordinate_space: 'screen' }));
}

/**
 * One bench run on the built server with a config of its own: `config` (its `instance` and
 * the rest) and a db in a temp dir `vmhub-bench-<name>-…`, the server's env `env` besides. Runs
 * `fn({ client, call, leases, dir })` and gives back what it gives; afterwards every lease pushed
 * onto `leases` is released, the client closed and the dir removed.
 */
export async function withBenchServer(name, config, fn, env = {}) {
  const dir = mkdtempSync(join(tmpdir(), `vmhub-bench-${name}-`));
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ db: join(dir, 'vmhub.db'), ...config }));
  const client = await connectServer({ VMHUB_CONFIG: file, ...env });
  const leases = [];
  try {
    return await fn({ client, call: toolCaller(client), leases, dir });
  } finally {
    for (const lease of leases) await client.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } }).catch(() => undefined);
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints `run()`'s figures as JSON when the module at `url` is the script node was started with. */
export async function runAsScript(url, run) {
  if (url === `file://${process.argv[1]}`) console.log(JSON.stringify(await run(), null, 2));
}

/**
 * For a benchmark that writes its own section of RESULTS.md: when the module at `url` is the
 * script node was started with, time `run()`, write its figures as `section` ({name, title,
 * targets, command, after}: writeResultsSection's), and print them.
 */
export function runAsSection(url, section, run) {
  return runAsScript(url, async () => {
    const t = performance.now();
    const figures = await run();
    writeResultsSection({ ...section, figures, seconds: (performance.now() - t) / 1000 });
    return figures;
  });
}

/**
 * Lease a template and wait (vm_lease_status, 20 s a poll) until it is ready; returns the lease
 * id. `created(id)` hears of the lease before the wait, so a bench releases it even if it never
 * becomes ready.
 */
export async function leaseReady(call, template, created = () => {}) {
  const lease = (await call('vm_lease_create', { template })).structuredContent.lease_id;
  created(lease);
  let status = 'provisioning';
  while (['provisioning', 'starting'].includes(status)) status = (await call('vm_lease_status', { lease_id: lease, wait_seconds: 20 })).structuredContent.status;
  if (status !== 'ready') throw new Error(`lease ${lease} ${status}`);
  return lease;
}

/**
 * The floor of a cold Docker desktop create, the engine alone: `docker run -d` of the golden, then
 * ONE `docker exec` that polls inside the container every 10 ms until the X display answers
 * (`xdpyinfo`) and then until the window manager answers (`wmctrl -m`), each moment taken when
 * its line reaches this process. vmhub's ready waits for the window manager too, so
 * `until_window_manager` is the floor it is held to; `until_display` is the engine and Xvfb alone.
 * One sample; a bench pairs them with its own creates.
 */
async function dockerRunFloorOnce(golden, name = 'floor') {
  const { spawn, execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const run = promisify(execFile);
  const script = 'until xdpyinfo >/dev/null 2>&1; do sleep 0.01; done; echo display; until wmctrl -m >/dev/null 2>&1; do sleep 0.01; done; echo wm';
  const container = `vmhub-bench-${name}-${process.pid}`;
  const t = performance.now();
  let display;
  let wm;
  try {
    await run('docker', ['run', '-d', '--network', 'none', '--name', container, '-e', 'VMHUB_SCREEN=1280x800x24', golden]);
    await new Promise((resolve, reject) => {
      const p = spawn('docker', ['exec', '-u', 'user', '-e', 'DISPLAY=:0', container, 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      p.stdout.on('data', (d) => {
        out += d;
        if (out.includes('display') && display === undefined) display = performance.now() - t;
        if (out.includes('wm') && wm === undefined) wm = performance.now() - t;
      });
      p.on('error', reject);
      p.on('close', (code) => (code === 0 && wm !== undefined ? resolve() : reject(new Error(`floor probe exited ${code}`))));
    });
  } finally {
    await run('docker', ['rm', '-f', container]).catch(() => undefined);
  }
  return { display_ms: display, window_manager_ms: wm };
}

/**
 * A floor to pair with a bench's own creates: `sample(i)` takes one dockerRunFloorOnce of
 * `golden`, `stats()` gives the figures of all taken so far.
 */
export function floorSampler(golden, name) {
  const display = [];
  const wm = [];
  return {
    async sample(i) {
      const one = await dockerRunFloorOnce(golden, `${name}-${i}`);
      display.push(one.display_ms);
      wm.push(one.window_manager_ms);
    },
    stats: () => ({ until_display: spread(display), until_window_manager: spread(wm) }),
  };
}

/** Wait until a server's pool of `template` (its store at `db`) holds a ready, unexpired machine. */
export async function poolReady(db, template, ms) {
  const until = Date.now() + ms;
  const store = new Store({ path: db });
  try {
    while (Date.now() < until) {
      const rows = await store.listLeases({ principal: POOL_PRINCIPAL, status: ['ready'] });
      if (rows.some((r) => r.template === template && r.expires_at > Date.now())) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally { await store.close(); }
  throw new Error(`the ${template} pool did not refill in ${ms} ms`);
}

// RESULTS.md holds one section a benchmark between <!-- bench:NAME --> markers; the hand-written
// analysis under it, between <!-- notes:NAME --> markers, survives re-runs.
export const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

/** The notes of benchmark `name` in `text` (RESULTS.md), or empty markers. */
export function notesIn(text, name) {
  return new RegExp(`<!-- notes:${name} -->[\\s\\S]*?<!-- /notes:${name} -->`).exec(text)?.[0] ?? `<!-- notes:${name} -->\n<!-- /notes:${name} -->`;
}

/** The whole section of benchmark `name` in `text` (RESULTS.md), or undefined. */
export function sectionIn(text, name) {
  return new RegExp(`<!-- bench:${name} -->[\\s\\S]*?<!-- /bench:${name} -->`).exec(text)?.[0];
}

/** A section as bench/run.mjs writes it: title, targets, `body` (figures), then the kept notes. */
export function resultsSection(name, title, targets, body, notes) {
  return `<!-- bench:${name} -->\n## ${title}\n\nTargets: ${targets}\n\n${body}\n\n${notes}\n<!-- /bench:${name} -->`;
}

/**
 * For a benchmark run by itself: replace its section in RESULTS.md with `figures` (as JSON, with
 * when, how long and the `command`), keeping its notes. A new section goes after the section
 * named `after` when there is one, else at the end.
 */
export function writeResultsSection({ name, title, targets, figures, seconds, command, after }) {
  const text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '# Benchmark results\n';
  const body = `\`\`\`json\n${JSON.stringify(figures, null, 2)}\n\`\`\`\n_measured ${new Date().toISOString()} in ${seconds.toFixed(1)} s (\`${command}\`)_`;
  const section = resultsSection(name, title, targets, body, notesIn(text, name));
  const existing = sectionIn(text, name);
  let updated;
  if (existing) updated = text.replace(existing, () => section);
  else if (after && text.includes(`<!-- /bench:${after} -->`)) updated = text.replace(`<!-- /bench:${after} -->`, () => `<!-- /bench:${after} -->\n\n${section}`);
  else updated = `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(RESULTS_FILE, updated);
}
