/**
 * The console adapter on a real qemu (provider-qemu's built entry, tiny-console golden). One boot
 * for the whole file; every effect is checked in the guest: typed commands write to the serial
 * port (serial.log on the host), the tablet's evdev events are dumped there too, and the screen is
 * read back with tesseract. The test plays core's part: it opens the lease's console once, opens
 * one adapter session on the lease, and disposes the session and closes the console at the end.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { VmhubError, type Adapter, type AdapterContext, type ConsoleHandle, type GuestChannel, type LeaseContext, type MachineRef, type OpenSession, type Provider, type TemplateConfig } from '@vmhub/core';
import { shapeScreenshot } from '@vmhub/core/screenshot';
import { connectRouter, expectError } from '@vmhub/conformance';
import { callContext, testLease } from '@vmhub/test-kit';
import qemuPlugin, { buildTinyConsoleGolden, tinyConsoleTemplate } from '@vmhub/provider-qemu';
import consolePlugin from '../src/index.ts';

const run$ = promisify(execFile);
const rand = () => randomUUID().slice(0, 8).toUpperCase();
const isCode = (code: string, pattern?: RegExp) => (err: unknown) => {
  assert.ok(VmhubError.is(err), String(err));
  assert.equal(err.code, code, err.message);
  if (pattern) assert.match(err.message, pattern);
  return true;
};
const p50 = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)]!;

describe('console: adapter on a real qemu', { timeout: 500_000 }, () => {
  const prefix = `vmhub-t${randomUUID().slice(0, 8)}-`;
  const leaseId = randomUUID();
  let root: string;
  let template: TemplateConfig;
  let provider: Provider;
  let machine: MachineRef | undefined;
  let lease: LeaseContext;
  let ctx: AdapterContext;
  let session: OpenSession;
  let con: Promise<ConsoleHandle> | undefined;
  let serialPath: string;
  const adapter: Adapter = consolePlugin.create({});

  const serial = () => readFile(serialPath, 'latin1');
  const waitSerial = async (pattern: RegExp | string, ms = 20_000): Promise<string> => {
    const end = Date.now() + ms;
    for (;;) {
      const log = await serial();
      if (typeof pattern === 'string' ? log.includes(pattern) : pattern.test(log)) return log;
      if (Date.now() > end) throw new Error(`serial log never showed ${pattern}; tail: ${log.slice(-400)}`);
      await new Promise((r) => setTimeout(r, 150));
    }
  };
  const run = async (command: string) => {
    await session.type!(ctx, { text: command });
    await session.key!(ctx, { keys: 'Return' });
  };
  const ocr = async (): Promise<string> => {
    const shot = await shapeScreenshot(await session.screenshot!(ctx), { format: 'png' });
    const png = join(root, `ocr-${rand()}.png`);
    await writeFile(png, shot.data);
    await run$('convert', [png, '-resize', '300%', '-negate', png], { timeout: 30_000 });
    const { stdout } = await run$('tesseract', [png, '-', '--psm', '6'], { timeout: 60_000 });
    await rm(png, { force: true });
    return stdout;
  };

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'vmhub-console-test-'));
    await buildTinyConsoleGolden({ dir: join(root, 'golden') });
    template = tinyConsoleTemplate(join(root, 'golden'));
    provider = qemuPlugin.create({ state_dir: join(root, 'state') }, { identityPrefix: prefix, log: () => {} });
    const identity = `${prefix}${leaseId}`;
    const started = Date.now();
    machine = await provider.create({ lease_id: leaseId, identity, template, signal: AbortSignal.timeout(60_000) });
    await provider.ready(machine, { template, signal: AbortSignal.timeout(240_000), stage: () => {} });
    console.log(`# boot → ready ${Date.now() - started} ms`);
    serialPath = join(root, 'state', identity, 'serial.log');
    const m = machine;
    let ch: Promise<GuestChannel> | undefined;
    // Opened once for the lease, as core does (this template has no agent: channel() refuses).
    lease = testLease({ lease_id: leaseId, machine: m, template, console: () => (con ??= provider.console!(m)), channel: () => (ch ??= provider.channel!(m, template)) });
    session = await adapter.open(lease);
    ctx = callContext(lease, 450_000);
  });

  after(async () => {
    await session?.dispose();
    await (await con?.catch(() => undefined))?.close();
    if (machine) assert.equal(await provider.destroy(machine), 'destroyed');
    await rm(root, { recursive: true, force: true });
  });

  test('type a command + Return: its effect reaches the guest (serial log)', async () => {
    const marker = `MARKER-${rand()}`;
    await run(`echo ${marker} > /dev/ttyS0`);
    await waitSerial(`${marker}\r\n`);
  });

  test('every shifted symbol and punctuation arrives exactly', async () => {
    const payload = `SYM-${rand()} aZ09 !@#$%^&*()_+{}|:"<>?~ -=[]\\;,./\``;
    await run(`echo '${payload}' > /dev/ttyS0`);
    await waitSerial(payload);
  });

  test('named keys and chords: BackSpace, Home, ctrl+c', async () => {
    const r = rand();
    await session.type!(ctx, { text: `echo KEYS-${r}-AB1` });
    await session.key!(ctx, { keys: 'BackSpace' });
    await session.type!(ctx, { text: 'C > /dev/ttyS0' });
    await session.key!(ctx, { keys: 'Return' });
    await waitSerial(`KEYS-${r}-ABC\r\n`);
    await session.type!(ctx, { text: `cho HOME-${r} > /dev/ttyS0` });
    await session.key!(ctx, { keys: 'Home' });
    await session.type!(ctx, { text: 'e' });
    await session.key!(ctx, { keys: 'End Return' });
    await waitSerial(`HOME-${r}\r\n`);
    await session.type!(ctx, { text: `echo CANCELLED-${r} > /dev/ttyS0` });
    await session.key!(ctx, { keys: 'ctrl+c' });
    await run(`echo AFTER-${r} > /dev/ttyS0`);
    const log = await waitSerial(`AFTER-${r}`);
    assert.ok(!log.includes(`CANCELLED-${r}`), 'ctrl+c discarded the line');
  });

  test('screenshot: the shaped image reads back (OCR) as the console text', async () => {
    const words = `hello vmhub console ${rand()}`;
    await run(`echo ${words}`);
    const shot = await shapeScreenshot(await session.screenshot!(ctx), { format: 'png' });
    assert.deepEqual(shot.screen, await session.screenSize!(ctx));
    assert.equal(shot.scale, 1);
    let text = '';
    for (let i = 0; i < 3 && !/hello vmhub console/i.test(text); i++) text = await ocr();
    assert.match(text, /hello vmhub console/i);
    assert.match(text, /tiny#/);
  });

  test('text outside the keymap is refused before anything is sent', async () => {
    const r = rand();
    for (const text of [`echo LEAK-${r} > /dev/ttyS0\né`, '粘贴']) {
      await assert.rejects(session.type!(ctx, { text }), isCode('INVALID_REQUEST', /vm_paste.*vm_exec/));
    }
    await assert.rejects(session.type!(ctx, { text: 'é' }), isCode('INVALID_REQUEST', /"é" \(U\+00E9\)/));
    await assert.rejects(session.type!(ctx, { text: '粘' }), isCode('INVALID_REQUEST', /"粘"/));
    for (const keys of ['ctrl+é', 'hyper+x', 'F13']) await assert.rejects(session.key!(ctx, { keys }), isCode('INVALID_REQUEST'));
    await run(`echo CLEAN-${r} > /dev/ttyS0`);
    const log = await waitSerial(`CLEAN-${r}\r\n`);
    assert.ok(!log.includes(`LEAK-${r}`), 'no part of a refused text was typed');
  });

  test('pointer: click, scroll and drag reach the guest tablet; off-screen points are refused', async () => {
    const { width, height } = await session.screenSize!(ctx);
    const r = rand();
    await run(`echo TABLET-${r} > /dev/ttyS0; od -An -tx1 -w24 -v /dev/tablet > /dev/ttyS0 &`);
    await waitSerial(`TABLET-${r}`);
    await new Promise((res) => setTimeout(res, 500));
    const from = (await serial()).length;
    await session.click!(ctx, { x: 360, y: 200, button: 'left', count: 1, modifiers: [] });
    await session.scroll!(ctx, { x: 100, y: 100, direction: 'up', amount: 2 });
    await session.drag!(ctx, { from: { x: 10, y: 10 }, to: { x: width - 1, y: height - 1 }, button: 'left' });
    const events = async () => (await serial()).slice(from).split(/\r?\n/).map((l) => l.trim().split(/\s+/).map((h) => parseInt(h, 16))).filter((b) => b.length === 24)
      .map((b) => ({ type: b[16]! | (b[17]! << 8), code: b[18]! | (b[19]! << 8), value: (b[20]! | (b[21]! << 8) | (b[22]! << 16) | (b[23]! << 24)) }));
    const has = (ev: { type: number; code: number; value: number }[], type: number, code: number, value: number) => ev.some((e) => e.type === type && e.code === code && e.value === value);
    const end = Date.now() + 20_000;
    let ev = await events();
    while (!(has(ev, 3, 0, 32767) && has(ev, 3, 1, 32767)) && Date.now() < end) { await new Promise((res) => setTimeout(res, 200)); ev = await events(); }
    assert.ok(has(ev, 3, 0, Math.round((360 * 32767) / (width - 1))), 'ABS_X of the click');
    assert.ok(has(ev, 3, 1, Math.round((200 * 32767) / (height - 1))), 'ABS_Y of the click');
    assert.ok(has(ev, 1, 0x110, 1) && has(ev, 1, 0x110, 0), 'BTN_LEFT press and release');
    assert.ok(ev.filter((e) => e.type === 2 && e.code === 8 && e.value === 1).length >= 2, 'two REL_WHEEL up turns');
    assert.ok(has(ev, 3, 0, 32767) && has(ev, 3, 1, 32767), 'drag reached the bottom-right corner');
    await session.key!(ctx, { keys: 'ctrl+c' });


    // Off-screen points are core's to refuse (the router checks them against the screen the
    // session reports), so they are sent the way an agent sends them: through the router.
    const conn = await connectRouter({ adapter, context: lease });
    try {
      for (const p of [{ x: width, y: 0 }, { x: 0, y: height }, { x: -1, y: 5 }, { x: 5000, y: 5000 }]) {
        const e = expectError(await conn.call('vm_click', { ...p, coordinate_space: 'screen' }), 'INVALID_REQUEST', `vm_click ${JSON.stringify(p)}`, 'refuse off-screen points');
        // A negative coordinate is refused by the tool's schema, before any bounds check.
        if (p.x >= 0) assert.match(e.message, /off the/);
      }
      expectError(await conn.call('vm_drag', { from: { x: 1, y: 1 }, to: { x: width + 10, y: 1 }, coordinate_space: 'screen' }), 'INVALID_REQUEST', 'vm_drag off-screen', 'refuse off-screen points');
      expectError(await conn.call('vm_scroll', { x: 1, y: height + 1, direction: 'down', amount: 1, coordinate_space: 'screen' }), 'INVALID_REQUEST', 'vm_scroll off-screen', 'refuse off-screen points');
    } finally {
      await conn.close();
    }
  });

  test('a cancelled vm_type stops between keys, promptly, and leaves no modifier held', async (t) => {
    const r = rand();
    const ac = new AbortController();
    // Capitals are shift chords: a cancel must never leave shift down.
    const call = session.type!({ ...ctx, signal: ac.signal }, { text: `echo NEVER-${r} ${'AbC'.repeat(200)}` });
    call.catch(() => undefined);
    await new Promise((res) => setTimeout(res, 600));
    const abortedAt = Date.now();
    ac.abort();
    await assert.rejects(call, isCode('TIMEOUT', /keyboard input stopped after \d+ of \d+ key strokes/));
    const endedMs = Date.now() - abortedAt;
    assert.ok(endedMs < 500, `vm_type ended ${endedMs} ms after the abort`);
    await session.key!(ctx, { keys: 'ctrl+c' });
    const marker = `after-cancel-${r.toLowerCase()}`;
    await run(`echo ${marker} > /dev/ttyS0`);
    const log = await waitSerial(`${marker}\r\n`);
    assert.ok(!log.includes(`NEVER-${r}`), 'the cancelled line was never run');
    t.diagnostic(`abort → vm_type rejected in ${endedMs} ms`);
  });

  test('files, exec and clone without a guest agent: CAPABILITY_UNAVAILABLE with the reason', async () => {
    const reason = /this template has no guest agent channel/;
    await assert.rejects(session.exec!(ctx, { argv: ['/bin/true'], timeout_ms: 5000, max_output_bytes: 1000 }), isCode('CAPABILITY_UNAVAILABLE', reason));
    await assert.rejects(session.putFile!(ctx, { path: '/tmp/x', data: Buffer.from('x') }), isCode('CAPABILITY_UNAVAILABLE', reason));
    await assert.rejects(session.getFile!(ctx, { path: '/etc/shrc', max_bytes: 1000 }), isCode('CAPABILITY_UNAVAILABLE', reason));
    await assert.rejects(session.cloneRepo!(ctx, { dest: '/root/r', archive: Readable.from([]) }), isCode('CAPABILITY_UNAVAILABLE', reason));
    const probe = await session.probe!(ctx);
    assert.deepEqual(Object.keys(probe).sort(), ['clone_repo', 'exec', 'get_file', 'put_file']);
    assert.match(probe.exec!, reason);
    for (const cap of ['inspect', 'list_windows', 'focus', 'close', 'launch', 'paste', 'dispatch']) assert.ok(!adapter.capabilities.includes(cap as never), `${cap} undeclared`);
  });

  test('measure: screenshot and key latency', async (t) => {
    const shots: number[] = [];
    const shaped: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      const raw = await session.screenshot!(ctx);
      shots.push(performance.now() - t0);
      await shapeScreenshot(raw, { format: 'png' });
      shaped.push(performance.now() - t0);
    }
    const keys: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      await session.key!(ctx, { keys: 'shift' });
      keys.push(performance.now() - t0);
    }
    const line = `screendump p50 ${p50(shots).toFixed(1)} ms, screenshot incl. shaping p50 ${p50(shaped).toFixed(1)} ms, key p50 ${p50(keys).toFixed(1)} ms`;
    t.diagnostic(line);
    console.log(`# ${line}`);
  });
});
