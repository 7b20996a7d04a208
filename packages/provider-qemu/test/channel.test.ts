/**
 * channel() and console() on a real qemu booting tiny-console-agent: each call opens a new
 * connection that belongs to its caller (core's lease session), and destroy() works while a
 * session still holds both — qemu dies, and the holder's calls and close() then end at once.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { VmhubError, type GuestChannel, type MachineRef, type Provider, type TemplateConfig } from '@vmhub/core';
import plugin, { buildGolden, tinyConsoleAgentTemplate } from '../src/index.ts';
import { testContext, testPrefix } from './helpers.ts';

/** Settles within `ms`, or fails naming what hung. */
async function within<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms); });
  try { return await Promise.race([p, hung]); } finally { clearTimeout(timer); }
}

async function echo(ch: GuestChannel, word: string): Promise<void> {
  const r = await ch.exec(['echo', word], { timeoutMs: 30_000 });
  assert.deepEqual([r.exit_code, r.stdout.toString().trim()], [0, word]);
}

const closedError = (e: unknown) => VmhubError.is(e) && /was closed: open a new one with channel\(\)/.test(e.message);

describe('qemu: channels and consoles per call, on a real qemu with the guest agent', { timeout: 300_000 }, () => {
  const prefix = testPrefix();
  const identity = `${prefix}${randomUUID()}`;
  let root: string;
  let template: TemplateConfig;
  let provider: Provider;
  let machine: MachineRef | undefined;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'vmhub-qemu-chan-'));
    await buildGolden('tiny-console-agent', { dir: join(root, 'golden') });
    const agent = tinyConsoleAgentTemplate(join(root, 'golden'));
    // Guest port 7000 forwarded (restricted user-mode net: no route out) for the connect() test.
    template = { ...agent, forward_tcp: true, provider_options: { ...agent.provider_options, forward_ports: [7000] } };
    provider = plugin.create({ state_dir: join(root, 'state') }, testContext(prefix));
    machine = await provider.create({ lease_id: identity.slice(prefix.length), identity, template, signal: AbortSignal.timeout(60_000) });
    await provider.ready(machine, { template, signal: AbortSignal.timeout(240_000), stage: () => {} });
  });

  after(async () => {
    if (machine) await provider.destroy(machine).catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  });

  test('connect() reaches a forwarded guest port: bytes go to a server in the guest and back; an unforwarded port is refused naming forward_ports', async () => {
    const ch = await provider.channel!(machine!, template);
    try {
      // busybox in the guest: bring up the NIC (QEMU's user-mode net is 10.0.2.0/24) and serve `cat` on 7000.
      const up = await ch.exec(['sh', '-c', 'ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && (nc -ll -p 7000 -e cat >/dev/null 2>&1 &) && sleep 0.5 && echo up'], { user: 'root', timeoutMs: 30_000 });
      assert.equal(up.stdout.toString().trim(), 'up', up.stderr.toString());
      const stream = await provider.connect!(machine!, 7000, { template });
      const back = await within('the echo through the forward', 30_000, new Promise<string>((resolve) => {
        let got = '';
        stream.on('data', (d: Buffer) => { got += d.toString(); if (got.includes('through-qemu')) resolve(got); });
        stream.write('through-qemu\n');
      }));
      assert.match(back, /through-qemu/);
      stream.destroy();
    } finally {
      await ch.close();
    }
    await assert.rejects(provider.connect!(machine!, 7001, { template }), (e: unknown) => VmhubError.is(e) && e.code === 'CAPABILITY_UNAVAILABLE' && /forward_ports/.test(e.message));
  });

  test('two channel() calls give two independent channels; closing one leaves the other working', async () => {
    const a = await provider.channel!(machine!, template);
    const b = await provider.channel!(machine!, template);
    assert.notEqual(a, b, 'a new channel per call, nothing pooled');
    await echo(a, 'from-a');
    await b.close();
    await echo(a, 'a-after-b-closed');
    await assert.rejects(b.exec(['true']), closedError, 'the closed one stays closed');

    // The agent's socket serves one client at a time: a channel opened now is served once `a`,
    // which holds the connection, is closed — and closing `a` does not touch it.
    const c = await provider.channel!(machine!, template);
    await a.close();
    await assert.rejects(a.exec(['true']), closedError);
    await echo(c, 'from-c');
    const data = Buffer.from(`shared guest ${randomUUID()}\n`);
    await c.putFile('/root/vmhub-chan.txt', data);
    await c.close();
    const d = await provider.channel!(machine!, template);
    try {
      assert.ok((await d.getFile('/root/vmhub-chan.txt')).equals(data), 'every channel reaches the same guest');
    } finally {
      await d.close();
    }
  });

  test('destroy while a session holds a channel and a console: clean quit, then their calls and close() end at once', async (t) => {
    const ch = await provider.channel!(machine!, template);
    const con = await provider.console!(machine!);
    await echo(ch, 'before-destroy');
    assert.equal((await con.screendump()).format, 'png');
    const inflight = ch.exec(['sleep', '300'], { timeoutMs: 600_000 });
    inflight.catch(() => undefined); // asserted below
    await new Promise((r) => setTimeout(r, 500));

    const started = Date.now();
    assert.equal(await provider.destroy(machine!), 'destroyed');
    const destroyMs = Date.now() - started;
    t.diagnostic(`destroy with a channel (exec in flight) and a console open: ${destroyMs} ms`);
    // The signal fallback first waits 2 s for a monitor greeting: under that, quit went through
    // the provider's own monitor although the session held the console and the agent.
    assert.ok(destroyMs < 2000, `destroy took ${destroyMs} ms`);
    machine = undefined;

    await assert.rejects(within('the exec in flight', 5000, inflight), (e: unknown) => VmhubError.is(e), 'the exec in flight rejects: the agent died with qemu');
    await assert.rejects(within('an exec after destroy', 5000, ch.exec(['true'])), (e: unknown) => VmhubError.is(e));
    await assert.rejects(within('a screendump after destroy', 5000, con.screendump()), (e: unknown) => VmhubError.is(e));
    const closing = Date.now();
    await within('channel.close()', 5000, ch.close());
    await within('console.close()', 5000, con.close());
    t.diagnostic(`close() after destroy: ${Date.now() - closing} ms`);
  });
});
