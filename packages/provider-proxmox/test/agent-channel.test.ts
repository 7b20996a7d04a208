/**
 * The guest-agent channel against the simulator's agent endpoints (exec/exec-status, file-write
 * within 61,440 chars, file-read with decode=0 segments on 9.1, base64-over-exec on 8.4). A small
 * exec handler records every argv and emulates `printf` and `sleep` exactly; everything else runs
 * in the simulator's default guest (files, users and rights in the per-VM file map), so
 * byte-exactness is checked end to end through the API. The channel acts as the cloud-init user
 * ("vmhub"): execs go through `runuser -u vmhub --` unless a call asks for root. Cancellation is
 * checked on the simulator's process model: the kill exec ends the simulated process.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { VmhubError, type MachineRef, type Provider } from '@vmhub/core';
import { defaultExec, type ExecHandler, type PveSimulator } from '@vmhub/pve-simulator';
import { abortExec, sleep } from '@vmhub/test-kit';
import { lease, providerFor, startSim, template } from './helpers/setup.ts';

/** Every argv the guest was asked to run, in order. */
const ran: string[][] = [];

const guest: ExecHandler = (req) => {
  const { argv, input } = req;
  ran.push(argv);
  let a = argv;
  let stdin: Buffer | undefined = input === undefined ? undefined : Buffer.from(input);
  if (a[0] === 'sh' && a[2] === 'base64 -d | "$@"') {
    stdin = Buffer.from(input ?? '', 'base64');
    a = a.slice(4);
  }
  if (a[0] === 'sh' && a[2]?.startsWith('cd -- "$1"')) a = a.slice(5);
  if (a[0] === 'runuser') a = a.slice(4);
  switch (a[0]) {
    case 'true': case 'kill': return { exitcode: 0 };
    case 'printf': return { exitcode: 0, stdout: a.slice(2).map((x) => `${x}\0`).join('') };
    case 'sleep': return { exitcode: 0, durationMs: Number(a[1]) * 1000 };
    case 'cat': if (a.length === 1) return { exitcode: 0, stdout: stdin ?? Buffer.alloc(0) };
  }
  return defaultExec(req);
};

for (const mode of ['9', '8'] as const) {
  describe(`proxmox: guest-agent channel (PVE ${mode})`, () => {
    let sim: PveSimulator;
    let provider: Provider;
    let machine: MachineRef;
    const tpl = template({}, { channel: 'agent' });

    before(async () => {
      sim = await startSim({ mode, guest: { agentDelayMs: 100, exec: guest } });
      provider = providerFor(sim, 'agt');
      machine = await provider.create({ ...lease('agt'), template: tpl, signal: AbortSignal.timeout(20_000) });
      await provider.ready(machine, { signal: AbortSignal.timeout(20_000), stage: () => undefined, template: tpl });
    });
    after(async () => {
      if (machine) await provider.destroy(machine);
      const seen = sim.state.endpointsExercised();
      process.stderr.write(`[provider-proxmox] PVE ${mode} agent channel exercised ${seen.length} endpoints: ${seen.join(', ')}\n`);
      await provider?.close?.();
      await sim?.close();
    });

    it('exec passes argv untouched (no shell) and stdin through input-data', async () => {
      const ch = await provider.channel!(machine, tpl);
      const argv = ["it's", '$(id)', 'a;b', '*', ''];
      const r = await ch.exec(['printf', '%s\\0', ...argv]);
      assert.deepEqual(r.stdout.toString().split('\0').slice(0, -1), argv);
      assert.equal((await ch.exec(['cat'], { stdin: 'hello\nworld' })).stdout.toString(), 'hello\nworld');
      assert.equal((await ch.exec(['cat'], { stdin: Buffer.from([0xff, 0x41]) , cwd: '/tmp' })).exit_code, 0);
      const t = await ch.exec(['sleep', '30'], { timeoutMs: 300 });
      assert.deepEqual([t.timed_out, t.exit_code], [true, null]);
      await assert.rejects(ch.exec(['cat'], { stdin: 'x'.repeat(70_000) }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
    });

    it('an abort signal stops polling at once and kills the guest pid; an aborted one never starts', async (t) => {
      const ch = await provider.channel!(machine, tpl);
      const vmid = Number(machine.external_id);
      const statusPolls = (): number => sim.state.requests.log.filter((r) => r.path.endsWith('/agent/exec-status')).length;
      const from = ran.length;
      const ctl = new AbortController();
      // As root (the agent's own user): no runuser, so the pid the agent reports is the command's.
      const pending = ch.exec(['sleep', '300'], { user: 'root', timeoutMs: 60_000, signal: ctl.signal });
      await sleep(500);
      const { ms: resolvedMs } = await abortExec(ctl, pending, 500);
      assert.equal(getEventListeners(ctl.signal, 'abort').length, 0, 'the abort listener is removed');
      const started = ran.slice(from);
      assert.deepEqual(started.map((a) => a[0]), ['sleep', 'kill'], 'one exec of the command, then one kill');
      const pid = Number(started[1]!.at(-1));
      assert.deepEqual(started[1], ['kill', '-KILL', String(pid)]);
      const proc = sim.state.raw(vmid)!.guest.execs.get(pid);
      assert.ok(proc?.killed && proc.result?.signal === 9, 'the simulated sleep 300 ended by SIGKILL');
      const polls = statusPolls();
      await new Promise((res) => setTimeout(res, 1200));
      assert.equal(statusPolls(), polls, 'no exec-status poll after exec resolved');
      t.diagnostic(`PVE ${mode}: abort → exec resolved in ${resolvedMs} ms`);

      // runuser forks: the command's own process is killed first (descendants of the pid), then the
      // pid — for a user asked for, and for the channel's default user (the cloud-init user).
      for (const user of ['vmhub', undefined]) {
        const fromUser = ran.length;
        const u = await ch.exec(['sleep', '300'], { user, timeoutMs: 60_000, signal: AbortSignal.timeout(300) });
        assert.equal(u.timed_out, true);
        const userRun = ran.slice(fromUser);
        assert.deepEqual(userRun.map((a) => a[0]), ['runuser', 'sh', 'kill']);
        assert.deepEqual(userRun[0]!.slice(0, 4), ['runuser', '-u', 'vmhub', '--'], 'the default user is the cloud-init user');
        assert.equal(userRun[1]!.at(-1), userRun[2]!.at(-1), 'the descendants of the same pid, then the pid');
      }

      const before = ran.length;
      const pre = new AbortController();
      pre.abort(new Error('cancelled before start'));
      const t0 = Date.now();
      const p = await ch.exec(['sleep', '300'], { signal: pre.signal });
      assert.deepEqual([p.exit_code, p.timed_out], [null, true]);
      assert.ok(Date.now() - t0 < 50, `an already-aborted exec took ${Date.now() - t0} ms`);
      assert.equal(ran.length, before, 'the command never reached the guest');

      const idle = new AbortController();
      assert.equal((await ch.exec(['printf', '%s\\0', 'ok'], { signal: idle.signal })).stdout.toString(), 'ok\0');
      assert.equal(getEventListeners(idle.signal, 'abort').length, 0);
    });

    it('two channel() calls give independent channels: closing one leaves the other working', async () => {
      const a = await provider.channel!(machine, tpl);
      const b = await provider.channel!(machine, tpl);
      assert.notEqual(a, b, 'each call opens a new channel');
      await a.close();
      await assert.rejects(a.exec(['true']), (e: unknown) => VmhubError.is(e) && e.code === 'LEASE_NOT_READY');
      assert.equal((await b.exec(['printf', '%s\\0', 'b'])).stdout.toString(), 'b\0');
      await b.close();
      const c = await provider.channel!(machine, tpl);
      assert.equal((await c.exec(['printf', '%s\\0', 'c'])).stdout.toString(), 'c\0', 'a channel opened after both closed works');
      await c.close();
    });

    it('a provider that knows no SSH key for the lease (restart without state_dir) falls back to the agent', async () => {
      const restarted = providerFor(sim, 'agt');
      const ch = await restarted.channel!(machine, template());
      assert.equal(ch.constructor.name, 'AgentChannel');
      assert.equal((await ch.exec(['printf', '%s\\0', 'ok'])).stdout.toString(), 'ok\0');
      await restarted.close?.();
    });

    it('putFile in ≤61,440-char chunks and getFile are byte-exact (1.5 MB)', async () => {
      const ch = await provider.channel!(machine, tpl);
      const vmid = Number(machine.external_id);
      const data = randomBytes(1536 * 1024);
      await ch.putFile('/home/vmhub/blob.bin', data, { mode: 0o600 });
      assert.ok(sim.state.readGuestFile(vmid, '/home/vmhub/blob.bin')?.equals(data), 'the guest holds the exact bytes');
      assert.equal(sim.state.guestFileOwner(vmid, '/home/vmhub/blob.bin'), 'vmhub', 'written by the cloud-init user, not by the agent (root)');
      assert.deepEqual([...sim.state.raw(vmid)!.guest.files.keys()].filter((f) => f.includes('vmhub-put')), [], 'the temp parts are gone');
      const small = Buffer.from('small file');
      await ch.putFile('/home/vmhub/s.txt', small);
      assert.ok((await ch.getFile('/home/vmhub/s.txt')).equals(small));
      assert.ok((await ch.getFile('/home/vmhub/blob.bin')).equals(data));
      await assert.rejects(ch.getFile('/nope'), (e: unknown) => VmhubError.is(e) && e.code === 'NOT_FOUND');
      await assert.rejects(ch.getFile('/home/vmhub/blob.bin', { maxBytes: 1000 }), (e: unknown) => VmhubError.is(e) && e.code === 'INVALID_REQUEST');
      assert.deepEqual(sim.violations, []);
    });
  });
}
