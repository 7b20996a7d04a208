/**
 * x11: a cancelled call stops in the guest. The call's signal (AdapterContext.signal) reaches
 * every exec: a long vm_type stops typing, a vm_exec is killed, a paste still restores the
 * clipboard, an already-cancelled call starts nothing. Checked on a real X session through the
 * host channel, whose exec honours `signal` like a provider's channel must.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHostChannel } from '@vmhub/test-kit/host-channel';
import { abortExec, until } from '@vmhub/test-kit';
import { rejectsWith } from '@vmhub/test-kit/errors';
import { KEYMAP_PL } from '../src/keymap.ts';
import { guestPath, withSignal } from './context.ts';
import { settled, startDesktop, type Desktop } from './desktop.ts';

const rand = () => randomBytes(4).toString('hex');
/** A `sleep` argument no other process on the host uses: `sleep 300.<digits>` is still 300 s. */
const uniqueSleep = () => `300.${Number.parseInt(rand(), 16)}`;

/**
 * Pids of host processes whose argv starts with `argv` (exactly `argv` when `exact`), and that run
 * on X display `display` when given (other suites drive their own displays at the same time).
 */
function processes(argv: string[], options: { exact?: boolean; display?: string } = { exact: true }): number[] {
  const want = `${argv.join('\0')}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (options.exact ? cmdline !== want : !cmdline.startsWith(want)) continue;
      if (options.display && !readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`DISPLAY=${options.display}`)) continue;
      pids.push(Number(entry));
    } catch { /* exited meanwhile */ }
  }
  return pids;
}

describe('host channel: exec honours signal', () => {
  const home = mkdtempSync(join(tmpdir(), 'vmhub-x11-hc-'));
  after(() => rmSync(home, { recursive: true, force: true }));
  const channel = createHostChannel({ home });

  it('an already-aborted signal never starts the command', async () => {
    const marker = join(home, `started-${rand()}`);
    const ac = new AbortController();
    ac.abort();
    const r = await channel.exec(['sh', '-c', 'touch "$1"', 'sh', marker], { signal: ac.signal, timeoutMs: 10_000 });
    assert.deepEqual([r.exit_code, r.timed_out], [null, true]);
    await sleep(300);
    assert.equal(existsSync(marker), false, 'the command must not have run');
  });

  it('an abort kills the whole process tree and resolves at once', async () => {
    const a = uniqueSleep(), b = uniqueSleep();
    const ac = new AbortController();
    const pending = channel.exec(['sh', '-c', 'sleep "$1" & sleep "$2"; wait', 'sh', a, b], { signal: ac.signal, timeoutMs: 600_000 });
    await until(() => (processes(['sleep', a]).length && processes(['sleep', b]).length ? true : undefined), 'both sleeps running', 20_000, 20);
    const t0 = Date.now();
    ac.abort();
    const r = await pending;
    const ms = Date.now() - t0;
    assert.deepEqual([r.exit_code, r.timed_out], [null, true]);
    assert.ok(ms < 1500, `resolved ${ms} ms after the abort`);
    await until(() => (processes(['sleep', a]).length + processes(['sleep', b]).length === 0 ? true : undefined), 'sleeps gone', 10_000, 20);
    const after = await channel.exec(['echo', 'still-serving']);
    assert.equal(after.stdout.toString().trim(), 'still-serving');
  });
});

describe('x11: a cancelled call stops in the guest', () => {
  let d: Desktop;
  before(async () => { d = await startDesktop(); });
  after(async () => { await d?.stop(); });

  /** Keys and buttons the X server holds down (asking through XTEST also releases them). */
  const heldInput = () => execFileSync('perl', ['-e', KEYMAP_PL, 'release'], { env: { ...process.env, ...d.x.env }, timeout: 5000 }).toString('utf8').trim();
  const NOTHING_HELD = 'released keys  buttons';

  it('vm_type of a long text: the call ends within seconds, typing stops, no xdotool is left', async (t) => {
    const file = join(d.x.home, `sink-${rand()}.txt`);
    // Raw mode, no echo: every typed character reaches the file at once.
    await d.term(`sink-${rand()}`, `stty -icanon -echo; exec cat > '${file}'`);
    const length = () => (existsSync(file) ? readFileSync(file, 'utf8').length : 0);
    const text = 'abcdefghij'.repeat(200); // 2000 characters: ~25 s at the default 12 ms delay
    const ac = new AbortController();
    const start = Date.now();
    const call = d.session.type!(withSignal(d.ctx, ac.signal), { text });
    call.catch(() => undefined);
    // Cancel ~1 s in, once typing has visibly begun (a loaded host may take a moment to start).
    await until(() => (length() > 0 ? true : undefined), 'typing started', 10_000, 20);
    await sleep(Math.max(0, 1000 - (Date.now() - start)));
    const abortedAt = Date.now();
    ac.abort(new Error('cancelled by the test'));
    await rejectsWith(call, 'TIMEOUT', /vm_type stopped: the call was cancelled/);
    const endedMs = Date.now() - abortedAt;
    assert.ok(endedMs < 3000, `the call ended ${endedMs} ms after the abort`);
    assert.deepEqual(processes(['xdotool'], { display: d.x.display }), [], 'no xdotool of this session survives the cancel');
    // xdotool killed between a key's press and release leaves it down, auto-repeating: the adapter
    // released it before the call ended.
    assert.equal(heldInput(), NOTHING_HELD, 'no key left held in the X server');
    // Key events the X server already had may still reach a busy xterm: wait until it is quiet.
    const typed = await settled(length);
    assert.ok(typed > 0 && typed < 1000, `${typed} of 2000 characters typed`);
    await sleep(2000);
    assert.equal(length(), typed, 'nothing more is typed after the cancel');
    // The lease's input queue is free again: the next call types.
    await d.session.type!(d.ctx, { text: 'Z' });
    await until(() => (readFileSync(file, 'utf8').endsWith('Z') ? true : undefined), 'Z typed', 20_000, 50);
    assert.equal(length(), typed + 1);
    t.diagnostic(`abort → vm_type rejected in ${endedMs} ms; ${typed} of 2000 characters typed (${Date.now() - start} ms test)`);
  });

  it('vm_exec of `sleep 300` cancelled after 500 ms: resolves timed_out and the process is gone', async (t) => {
    const arg = uniqueSleep();
    const ac = new AbortController();
    const start = Date.now();
    const call = d.session.exec!(withSignal(d.ctx, ac.signal), { argv: ['sleep', arg], timeout_ms: 600_000, max_output_bytes: 4096 });
    await until(() => (processes(['sleep', arg]).length ? true : undefined), 'sleep running', 20_000, 20);
    await sleep(Math.max(0, 500 - (Date.now() - start)));
    const { ms: endedMs } = await abortExec(ac, call, 2000);
    await until(() => (processes(['sleep', arg]).length === 0 ? true : undefined), 'sleep gone', 10_000, 20);
    t.diagnostic(`abort → vm_exec resolved in ${endedMs} ms`);
  });

  it('vm_drag cancelled mid-way: the call ends at once and the button is not left down', async () => {
    const slow = await d.open({ display: d.x.display, drag_steps: 200, drag_step_delay_ms: 20 }); // ~4 s
    const ac = new AbortController();
    const call = slow.drag!(withSignal(d.ctx, ac.signal), { from: { x: 600, y: 700 }, to: { x: 1000, y: 750 }, button: 'left' });
    call.catch(() => undefined);
    await until(() => (processes(['xdotool', 'mousemove', '600', '700'], { display: d.x.display }).length ? true : undefined), 'drag running', 20_000, 20);
    await sleep(400);
    const abortedAt = Date.now();
    ac.abort();
    await rejectsWith(call, 'TIMEOUT', /xdotool stopped: the call was cancelled/);
    assert.ok(Date.now() - abortedAt < 3000);
    assert.equal(heldInput(), NOTHING_HELD, 'button 1 released after the cancelled drag');
  });

  it('an already-cancelled call starts nothing in the guest', async () => {
    const ac = new AbortController();
    ac.abort();
    const ctx = withSignal(d.ctx, ac.signal);
    const before = d.channel.calls.length;
    await rejectsWith(d.session.type!(ctx, { text: 'never typed' }), 'TIMEOUT', /vm_type not started/);
    await rejectsWith(d.session.key!(ctx, { keys: 'Return' }), 'TIMEOUT', /not started/);
    await rejectsWith(d.session.paste!(ctx, { text: 'never pasted' }), 'TIMEOUT', /not started/);
    await rejectsWith(d.session.putFile!(ctx, { path: guestPath(d.channel, `never-${rand()}`), data: Buffer.from('x') }), 'TIMEOUT', /put_file not started/);
    assert.equal(d.channel.calls.length, before, 'no guest command for a cancelled call');
    const marker = join(d.x.home, `never-${rand()}`);
    const r = await d.session.exec!(ctx, { argv: ['touch', marker], timeout_ms: 10_000, max_output_bytes: 100 });
    assert.deepEqual([r.exit_code, r.timed_out], [null, true]);
    assert.equal(existsSync(marker), false);
  });

  it('vm_paste cancelled while it waits for the app: ends at once and still restores the clipboard', async (t) => {
    const title = `xev-cancel-${rand()}`;
    d.x.spawnX(['xev', '-name', title, '-event', 'keyboard']);
    const w = await d.window(title);
    await d.session.focus!(d.ctx, { window: w.id });
    const env = { ...process.env, ...d.x.env };
    execFileSync('sh', ['-c', 'xclip -selection clipboard -i >/dev/null 2>&1'], { input: 'old clipboard ✓', env, timeout: 3000 });
    // xev never fetches the clipboard: without the cancel the call would wait 8 s.
    const slow = await d.open({ display: d.x.display, paste_timeout_ms: 8000 });
    const ac = new AbortController();
    const call = slow.paste!(withSignal(d.ctx, ac.signal), { text: 'never read' });
    call.catch(() => undefined);
    // Cancel once the paste owns the clipboard and waits for the app to fetch it.
    await until(() => (processes(['xclip', '-selection', 'clipboard', '-i', '-verbose', '-loops', '1'], { exact: true, display: d.x.display }).length ? true : undefined), 'paste waiting', 20_000, 20);
    await sleep(200);
    const abortedAt = Date.now();
    ac.abort();
    await rejectsWith(call, 'TIMEOUT', /vm_paste stopped: .*previous selection content was put back/);
    const endedMs = Date.now() - abortedAt;
    assert.ok(endedMs < 3000, `paste ended ${endedMs} ms after the abort`);
    assert.equal(execFileSync('xclip', ['-selection', 'clipboard', '-o'], { env, timeout: 3000 }).toString('utf8'), 'old clipboard ✓');
    await d.session.close!(d.ctx, { window: w.id });
    t.diagnostic(`abort → vm_paste rejected (clipboard restored) in ${endedMs} ms`);
  });
});
