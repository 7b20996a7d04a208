// Runs every benchmark (or the named ones) and puts each one's section into bench/RESULTS.md with
// the figures and the targets — only the sections it ran: every other section (the benchmarks
// that write their own, and what another run wrote meanwhile) stays as it is in the file when it
// writes. Run from the repo root after a build:  node bench/run.mjs [name...]
//   names: cold-start, desktop, console, reaper, store, sessions, android, wayland, vnc, ocr, agent-tools, resize, capture, pool, qemu-restore, concurrent, live-view
import { execFileSync } from 'node:child_process';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { notesIn, RESULTS_FILE, resultsSection, sectionIn } from './lib.mjs';

const BENCHES = {
  'cold-start': { file: './cold-start.mjs', title: 'Server cold start and tools/list size (issue 2)', targets: 'cold start median ≤ 400 ms; tools/list ≤ 20 KB (20 480 bytes) for the default toolsets and ≤ 28 KB (28 672 bytes) for all tools (issue 34.3; issue 9 had raised the single budget from 16 KB)' },
  desktop: { file: './desktop.mjs', title: 'Docker + X11 through MCP vs one `docker exec` per action (issue 3)', targets: 'vm_click p50 ≤ 20 ms; vm_screenshot p50 ≤ 150 ms and ≤ 300 KB at 1280×800; create → ready ≤ 5 s with the image present' },
  console: { file: './console.mjs', title: 'QEMU (TCG) + console adapter through MCP (issue 6)', targets: 'measured, no target: boot → ready under TCG; vm_screenshot p50; vm_key p50' },
  reaper: { file: './reaper-pass.mjs', spawn: true, title: 'Reaper pass over 10 000 leases, SQLite and PostgreSQL (issues 4, 18)', targets: 'one pass ≤ 1 s; memory peak reported' },
  store: { file: './store.mjs', spawn: true, title: 'Store: lease create on SQLite and PostgreSQL (issue 18)', targets: 'lease create p50 on both dialects, beside the naive way and the floor' },
  sessions: { file: './session-leak.mjs', spawn: true, nodeArgs: ['--expose-gc'], args: ['--leases', '800'], title: 'Per-lease state after 800 leases, in process (issue 9)', targets: 'every per-lease count back to 0; heap growth per lease after the deadline timers settle ≈ 0 (floor: the same calls without leases)' },
  android: { file: './android.mjs', title: 'Android over adb (stand-in: real adbd) vs a per-call `adb shell` (issue 12)', targets: 'screencap p50 ≤ 150 ms at 1080×2400 (cua reports 519 ms per ADB screenshot); tap p50 reported beside the naive way; vm_screenshot of the whole 1080×2400 screen p50 ≤ 1.1× the device\'s own `screencap -p` in the same run (issue 35.4)' },
  wayland: { file: './wayland.mjs', title: 'sway (Wayland, headless) beside x11 on Docker (issues 13, 35.3)', targets: 'sway vm_type of 7 characters p50 ≤ 1.2× x11\'s and sway vm_screenshot p50 ≤ 1.2× x11\'s, in the same run (issue 35.3); click and vm_key measured beside them; sway references in the same rounds: one guest command (vm_exec `true`, the floor of any per-call guest command) and the old vm_type (one `wtype -s 150 -d 2` per call)' },
  ocr: { file: './ocr.mjs', title: 'OCR on rendered screens: tesseract as core runs it vs the naive way (issue 16)', targets: 'measured, no target: recall and precision on the corpus (bench/ocr-corpus.mjs), p50/p95 per 1280×800 screen beside the naive way and the floor (decode + preprocessing)' },
  vnc: { file: './vnc.mjs', title: 'Screenshots over VNC (live framebuffer) vs QMP screendump on one QEMU guest (issue 15)', targets: 'measured, no target: VNC incremental p50 beside QMP screendump, a fresh VNC connection per shot, and the floor' },
  'agent-tools': { file: './agent-tools.mjs', title: 'Agent tools on Docker + X11: find text, and a 10-step batch with wait-for-settle vs fixed sleeps (issue 16)', targets: 'measured, no target: vm_find_text p50/p95 at 1280×800 (changed screen, cached same screen, floor vm_screenshot); 10-step task total time with wait_for settle vs 1 s sleeps, and whether its effect was right' },
  resize: { file: './resize.mjs', spawn: true, title: 'Screenshot downscale: resize kernel and format for screen content (issue 19)', targets: 'measured, no target: bytes, resize+encode ms and the share of native-frame words tesseract still reads, per libvips kernel and format, on a real X desktop at 1920×1080 and 2560×1440 downscaled to 1280 wide, beside the native frame' },
  capture: { file: './capture.mjs', title: 'vm_screenshot from the host framebuffer (Xvfb -fbdir) vs through the guest, at 1280×800 and 2560×1440 (issue 19)', targets: 'screenshot p50 ≤ 40 ms at 1280×800 and ≤ 70 ms at 2560×1440 (defaults: PNG fitted to 1280×800), beside the guest path (xwd | gzip -1) and the floor (read + decode + encode in process, no MCP)' },
  pool: { file: './pool.mjs', title: 'Warm pools: create → ready and → first screenshot, warm pool vs cold, Docker and QEMU under TCG (issue 19)', targets: 'from a warm pool ≤ 150 ms for Docker and ≤ 1 s for QEMU under TCG (create → ready as the client sees it), beside a cold create and the docker-run floor' },
  'qemu-restore': { file: './qemu-restore.mjs', title: 'QEMU under TCG: lease resumed from a saved VM state vs cold boot vs warm pool', targets: 'create → ready ≤ 1 s resumed from a saved state (as the client sees it), beside a cold boot and a warm pool in the same run' },
  concurrent: { file: './concurrent-click.mjs', title: 'vm_click with 4 leases at once vs one lease alone, Docker + X11 (issue 19)', targets: '4 concurrent leases keep click p50 within 1.5× of one lease' },
  'live-view': { file: './live-view.mjs', title: 'Live view: agent action → painted in the dashboard page, headless Chromium on a debian-x11 lease (issues 17, 35.1)', targets: 'action → changed pixels painted in the page p50 ≤ 1.5× the floor (one fetch of the screen as the frame loop asks for it); ≥ 20 frames/s painted while the screen changes; ≤ 2 Mbit/s while typing into a terminal; several viewers of one lease cost one capture; beside the frame loop before it and the naive page reload per frame' },
};

const wanted = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(BENCHES);

const header = `# Benchmark results

Produced by \`node bench/run.mjs\` (all) or \`node bench/run.mjs <name>\` (one; the others keep their
last figures), and by the benchmarks that write their own section (\`node bench/<name>.mjs\`).
Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.
Every figure goes through the official MCP SDK client against the built \`vmhub-server\` unless
the section says otherwise. Analysis and caveats: see the notes under each section's JSON.
`;

/**
 * Put one bench's section into RESULTS.md as it is NOW (read again at each write: sections other
 * benchmarks wrote meanwhile, and every section this script does not run, stay): replaced where it
 * is, or a new one after the section of the bench listed before it (else at the end).
 */
function writeSection(name, section) {
  let text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : header;
  const existing = sectionIn(text, name);
  if (existing) text = text.replace(existing, () => section);
  else {
    const names = Object.keys(BENCHES);
    const before = names.slice(0, names.indexOf(name)).reverse().find((n) => sectionIn(text, n));
    const anchor = before ? `<!-- /bench:${before} -->` : undefined;
    text = anchor ? text.replace(anchor, () => `${anchor}\n\n${section}`) : `${text.trimEnd()}\n\n${section}\n`;
  }
  writeFileSync(RESULTS_FILE, text);
}

for (const name of Object.keys(BENCHES)) {
  const b = BENCHES[name];
  if (!wanted.includes(name)) continue;
  const path = fileURLToPath(new URL(b.file, import.meta.url));
  let body;
  if (!existsSync(path)) body = '_benchmark script not present_';
  else {
    const started = Date.now();
    try {
      // Scripts that run as a command print their figures as JSON on stdout.
      const result = b.spawn
        ? JSON.parse(execFileSync(process.execPath, [...(b.nodeArgs ?? []), path, ...(b.args ?? [])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 * 1024 * 1024 }))
        : await (await import(path)).run();
      body = '```json\n' + JSON.stringify(result, null, 2) + '\n```\n' + `_measured ${new Date().toISOString()} in ${((Date.now() - started) / 1000).toFixed(1)} s_`;
    } catch (err) {
      body = `_failed: ${String(err.message ?? err).split('\n')[0]}_`;
    }
  }
  console.error(`[bench] ${name} done`);
  const now = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '';
  writeSection(name, resultsSection(name, b.title, b.targets, body, notesIn(now, name)));
}
console.error(`[bench] wrote ${RESULTS_FILE}`);
