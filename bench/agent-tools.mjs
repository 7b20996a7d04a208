// Issue 16's agent tools on Docker + X11 (debian-x11), through the MCP client against the built
// server: vm_find_text p50/p95 at 1280×800 on a terminal full of text (a changed screen each
// time, the OCR cache's case of the same unchanged screen twice, and the floor: vm_screenshot
// alone), and a 10-step vm_batch task with wait_for {for: "settle"} against the same task with
// fixed 1 s sleeps: total time, and whether the task's effect was right (files in the guest, the
// last output on the final screenshot, read with the tesseract binary).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connectServer, leaseReady, round, runAsScript, stats, toolCaller } from './lib.mjs';

const N = Number(process.env.N ?? 15);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** What the tesseract binary reads on a PNG (stdin → stdout; sparse text suits a terminal). */
async function readPng(png) {
  return new Promise((resolve, reject) => {
    const child = execFile('tesseract', ['stdin', 'stdout', '--psm', '11'], { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin.end(png);
  });
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), 'vmhub-bench-agent-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ instance: 'bencha', db: join(dir, 'vmhub.db'), reaper: { autostart: false } }));
  const client = await connectServer({ VMHUB_CONFIG: config });
  const call = toolCaller(client);
  const timed = async (fn) => { const t = performance.now(); await fn(); return performance.now() - t; };
  let lease;
  try {
    lease = await leaseReady(call, 'debian-x11', (id) => { lease = id; });
    const L = { lease_id: lease };

    // A terminal over the whole 1280×800 screen, full of text (package list), an interactive
    // shell at the bottom; DejaVu Sans Mono 10 pt ≈ 8×16 px cells.
    const w = (await call('vm_launch', { ...L, app: 'xterm', args: ['-maximized', '-fa', 'DejaVu Sans Mono', '-fs', '10', '-e', 'bash', '-c', 'dpkg -l | head -n 44; echo needle in the haystack; exec bash'], wait_seconds: 10 })).structuredContent.window;
    await call('vm_focus', { ...L, window: w.id });
    await call('vm_wait', { ...L, for: 'settle', timeout_seconds: 20 });
    await call('vm_screenshot', L); // warm: channel, helper, sharp
    const first = (await call('vm_find_text', { ...L, text: 'needle' })).structuredContent.matches;
    const words = (await readPng(Buffer.from((await call('vm_screenshot', L)).content.find((c) => c.type === 'image').data, 'base64'))).split(/\s+/).filter(Boolean).length;

    const shot = [];
    for (let i = 0; i < N; i++) shot.push(await timed(() => call('vm_screenshot', L)));

    // A changed screen each time: one more character at the prompt, so the cache cannot answer.
    const fresh = [];
    let found = 0;
    for (let i = 0; i < N; i++) {
      await call('vm_type', { ...L, text: 'x' });
      await sleep(150);
      fresh.push(await timed(async () => { if ((await call('vm_find_text', { ...L, text: 'needle' })).structuredContent.matches.length) found++; }));
    }
    // The same unchanged screen again: the OCR cache's case (vm_wait polling, find then click).
    const cached = [];
    for (let i = 0; i < N; i++) cached.push(await timed(() => call('vm_find_text', { ...L, text: 'haystack' })));
    await call('vm_key', { ...L, keys: 'ctrl+u' });

    const settle = await task(call, L, 'settle');
    const sleeps = await task(call, L, 'sleep');
    return {
      screen: '1280x800, xterm full of text (dpkg -l), DejaVu Sans Mono 10 pt',
      words_on_screen: words,
      first_find_text_matches: first.length,
      floor_vm_screenshot: stats(shot),
      vm_find_text_changed_screen: { ...stats(fresh), found_in: `${found}/${N}` },
      vm_find_text_same_screen_cached: stats(cached),
      task_10_steps: { wait_for_settle: settle, fixed_1s_sleeps: sleeps },
    };
  } finally {
    if (lease) await client.callTool({ name: 'vm_lease_release', arguments: { lease_id: lease } }).catch(() => undefined);
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Five commands, each typed with its Return ("…\n") and followed by a wait: 10 steps in one
 * vm_batch. Two of them print for longer than a second (output every 250–300 ms), as builds
 * and tests do; the waits are wait_for {for: "settle"} or a fixed {seconds: 1}.
 */
async function task(call, L, kind) {
  const d = `/tmp/task-${kind}`;
  const commands = [
    `clear; mkdir -p ${d} && cd ${d} && pwd`,
    'for i in 1 2 3 4 5 6; do echo step $i; sleep 0.25; done | tee log.txt',
    'seq 1 2000 | sort -rn | head -n 3 | tee top.txt',
    "for i in 1 2 3 4 5 6 7 8; do printf .; sleep 0.3; done; echo; cat log.txt top.txt | wc -l | tee count.txt",
    `echo task-finished-$(cat count.txt)-${kind}`,
  ];
  const wait = kind === 'settle' ? { action: 'wait_for', for: 'settle', timeout_seconds: 20 } : { action: 'wait', seconds: 1 };
  const actions = commands.flatMap((c) => [{ action: 'type', text: `${c}\n` }, wait]);
  const t = performance.now();
  const r = await call('vm_batch', { ...L, actions, screenshot: true });
  const total = performance.now() - t;
  const b = r.structuredContent;
  // Effects: read at once, as the agent's next step would see them.
  const files = (await call('vm_exec', { ...L, shell: `cat ${d}/log.txt ${d}/top.txt ${d}/count.txt 2>/dev/null` })).structuredContent.stdout;
  const filesRight = files === 'step 1\nstep 2\nstep 3\nstep 4\nstep 5\nstep 6\n2000\n1999\n1998\n9\n';
  const image = r.content.find((c) => c.type === 'image');
  const seen = image ? await readPng(Buffer.from(image.data, 'base64')) : '';
  const shown = new RegExp(`task-finished-9-${kind}`).test(seen.replace(/\s+/g, ''));
  await sleep(4000); // let anything still running finish before the next task
  await call('vm_key', { ...L, keys: 'ctrl+u' });
  return {
    total_ms: round(total),
    steps_ok: `${b.results.filter((x) => x.ok).length}/${actions.length}`,
    waited_ms: kind === 'settle' ? b.results.filter((x) => x.action === 'wait_for').map((x) => x.result?.waited_ms) : undefined,
    files_right_at_once: filesRight,
    final_screenshot_shows_last_output: shown,
  };
}

await runAsScript(import.meta.url, run);
