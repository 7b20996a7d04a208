/**
 * @vmhub/conformance's provider suite on a real qemu booting tiny-console-agent, so the
 * guest-agent channel (exec, 64 KB file round trip, NOT_FOUND, abort signal) is exercised too.
 *
 * The suite's machine is the only one with a guest agent, so the cancellation check that needs
 * the guest's process table runs on it too: just before the suite destroys the machine, a probe
 * cancels a `sleep 300` and reads busybox `ps`; the test after the suite asserts what it saw.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { MachineRef, Provider, ProviderPlugin } from '@vmhub/core';
import { runProviderConformance } from '@vmhub/conformance';
import plugin, { buildGolden, tinyConsoleAgentTemplate, type QemuProviderOptions } from '../src/index.ts';

const root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-conf-'));
after(() => rm(root, { recursive: true, force: true }));
await buildGolden('tiny-console-agent', { dir: join(root, 'golden') });
const template = tinyConsoleAgentTemplate(join(root, 'golden'));

interface AbortProbe {
  /** `sleep 300` was in `ps` before the abort. */
  sawRunning: boolean;
  abortAfterMs: number;
  resolvedMs: number;
  result: { exit_code: number | null; timed_out: boolean };
  /** `ps` lines still showing `sleep 300` after exec resolved. */
  leftover: string[];
  preAbortedMs: number;
  preAbortedResult: { exit_code: number | null; timed_out: boolean };
  /** exit code of `test -e` on the file the pre-aborted command would have made (1: never ran). */
  markerTest: number | null;
}

let probe: Promise<AbortProbe> | undefined;

const sleepLines = (ps: Buffer): string[] => ps.toString().split('\n').filter((l) => /\bsleep 300\b/.test(l));

async function abortProbe(provider: Provider, machine: MachineRef): Promise<AbortProbe> {
  const ch = await provider.channel!(machine, template);
  try {
    const ctl = new AbortController();
    const started = Date.now();
    const pending = ch.exec(['sleep', '300'], { timeoutMs: 120_000, signal: ctl.signal });
    // Abort ~500 ms in, but only once the guest really runs it (TCG can be slow to start it).
    let sawRunning = false;
    for (let i = 0; i < 100 && !sawRunning; i++) {
      sawRunning = sleepLines((await ch.exec(['ps'], { timeoutMs: 30_000 })).stdout).length > 0;
      if (!sawRunning) await new Promise((res) => setTimeout(res, 100));
    }
    await new Promise((res) => setTimeout(res, Math.max(0, started + 500 - Date.now())));
    const abortedAt = Date.now();
    ctl.abort(new Error('tool call cancelled'));
    const r = await pending;
    const resolvedMs = Date.now() - abortedAt;
    const leftover = sleepLines((await ch.exec(['ps'], { timeoutMs: 30_000 })).stdout);

    const marker = `/tmp/vmhub-never-${randomBytes(4).toString('hex')}`;
    const pre = new AbortController();
    pre.abort(new Error('cancelled before start'));
    const t0 = Date.now();
    const p = await ch.exec(['/bin/sh', '-c', 'echo ran > "$1"', 'sh', marker], { signal: pre.signal });
    const preAbortedMs = Date.now() - t0;
    await new Promise((res) => setTimeout(res, 500));
    const markerTest = (await ch.exec(['test', '-e', marker], { timeoutMs: 30_000 })).exit_code;
    return {
      sawRunning, abortAfterMs: abortedAt - started, resolvedMs, result: { exit_code: r.exit_code, timed_out: r.timed_out }, leftover,
      preAbortedMs, preAbortedResult: { exit_code: p.exit_code, timed_out: p.timed_out }, markerTest,
    };
  } finally {
    await ch.close();
  }
}

/** The plugin, with destroy() of the suite's machine running the probe first (once). */
const probed: ProviderPlugin<QemuProviderOptions> = {
  ...plugin,
  create(options, context) {
    const provider = plugin.create(options, context);
    let created: string | undefined;
    return {
      ...provider,
      async create(request) {
        const ref = await provider.create(request);
        created = ref.identity;
        return ref;
      },
      async destroy(machine) {
        if (machine.identity === created && !probe) {
          probe = abortProbe(provider, machine);
          await probe.catch(() => undefined);
        }
        return provider.destroy(machine);
      },
    };
  },
};

runProviderConformance({
  plugin: probed,
  options: { state_dir: join(root, 'state') },
  template,
  timeoutMs: 240_000,
  channelPath: '/root/vmhub-conformance.bin',
});

test('qemu: a cancelled exec leaves no process in the guest (busybox ps on the suite\'s machine)', async (t) => {
  assert.ok(probe, 'the probe never ran: the suite created no machine or never destroyed it');
  const p = await probe;
  t.diagnostic(`abort ${p.abortAfterMs} ms after start → exec resolved in ${p.resolvedMs} ms; already-aborted exec resolved in ${p.preAbortedMs} ms`);
  assert.ok(p.sawRunning, 'sleep 300 never showed in ps before the abort');
  assert.deepEqual(p.result, { exit_code: null, timed_out: true });
  assert.ok(p.resolvedMs < 5000, `resolved ${p.resolvedMs} ms after the abort`);
  assert.deepEqual(p.leftover, [], 'no sleep 300 left in the guest');
  assert.deepEqual(p.preAbortedResult, { exit_code: null, timed_out: true });
  assert.ok(p.preAbortedMs < 100, `an already-aborted exec took ${p.preAbortedMs} ms`);
  assert.equal(p.markerTest, 1, 'the already-aborted command never ran');
});
