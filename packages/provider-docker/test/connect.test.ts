/**
 * Provider.connect on a live container with networking off: bytes reach a TCP server on the
 * container's loopback and come back intact (1 MiB both ways), a closed port rejects with a
 * retryable CAPABILITY_UNAVAILABLE, several streams run at once, ending a stream ends its bridge
 * in the guest (counted in the container's process list), and GuestPorts.forward gives a host
 * unix socket the same way.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { connect as netConnect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Duplex } from 'node:stream';
import { GuestPorts, machineIdentity, VmhubError, type GuestChannel, type MachineRef, type Provider } from '@vmhub/core';
import { ensureGolden, makeProvider, removeContainers, template } from './fixture.ts';

// A sha256-echo server: answers each connection with the hex digest of everything it received, then the bytes themselves.
const SERVER = `
use strict; use IO::Socket::INET; use Digest::SHA qw(sha256_hex);
my $l = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $ARGV[0], Listen => 16, ReuseAddr => 1) or die "listen: $!";
$SIG{CHLD} = "IGNORE";
while (my $c = $l->accept) { next if fork; binmode $c; my $all = ""; while (sysread($c, my $b, 65536)) { $all .= $b } print $c sha256_hex($all), "\\n", $all; close $c; exit 0 }
`;

async function roundTrip(stream: Duplex, data: Buffer): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => { stream.on('data', (c: Buffer) => chunks.push(c)); stream.on('end', resolve); stream.on('error', reject); });
  stream.end(data);
  await done;
  return Buffer.concat(chunks);
}

async function bridges(channel: GuestChannel): Promise<number> {
  const r = await channel.exec(['sh', '-c', 'ps -eo args | grep -c "^perl -e use strict; use IO::Socket::INET; use IO::Select;" || true']);
  return Number(r.stdout.toString().trim());
}

describe('docker: connect to guest ports (networking off)', { timeout: 300_000 }, () => {
  let provider: Provider;
  let machine: MachineRef;
  let channel: GuestChannel;
  before(async () => {
    await ensureGolden();
    const made = makeProvider();
    provider = made.provider;
    const lease = randomUUID();
    machine = await provider.create({ lease_id: lease, identity: machineIdentity(made.context.instance, lease), template, signal: AbortSignal.timeout(60_000) });
    await provider.ready(machine, { signal: AbortSignal.timeout(60_000), stage: () => undefined, template });
    channel = await provider.channel!(machine, template);
    await channel.exec(['sh', '-c', 'nohup perl -e "$1" 7000 >/dev/null 2>&1 &', 'sh', SERVER]);
    await channel.exec(['sh', '-c', 'for i in $(seq 50); do perl -MIO::Socket::INET -e "exit !IO::Socket::INET->new(q(127.0.0.1:7000))" && exit 0; sleep 0.1; done; exit 1']);
  });
  after(async () => {
    await channel?.close();
    if (machine) await removeContainers(machine.external_id);
    await provider?.close?.();
  });

  it('carries 1 MiB to a loopback server in the container and back, byte-exact', async () => {
    const data = randomBytes(1024 * 1024);
    const reply = await roundTrip(await provider.connect!(machine, 7000, { template }), data);
    const nl = reply.indexOf(10);
    assert.equal(reply.subarray(0, nl).toString(), createHash('sha256').update(data).digest('hex'));
    assert.ok(reply.subarray(nl + 1).equals(data), 'the echoed bytes equal what was sent');
  });

  it('runs several streams at once, each with its own bytes', async () => {
    const payloads = [0, 1, 2, 3].map(() => randomBytes(50_000));
    const replies = await Promise.all(payloads.map(async (p) => roundTrip(await provider.connect!(machine, 7000, { template }), p)));
    replies.forEach((r, i) => assert.ok(r.subarray(r.indexOf(10) + 1).equals(payloads[i]!)));
  });

  it('a port nobody listens on rejects with a retryable CAPABILITY_UNAVAILABLE naming the port', async () => {
    await assert.rejects(provider.connect!(machine, 7999, { template }), (err: unknown) =>
      VmhubError.is(err) && err.code === 'CAPABILITY_UNAVAILABLE' && err.retryable && /port 7999/.test(err.message) && /refused/i.test(err.message));
  });

  it('destroying a stream ends its bridge in the guest', async () => {
    const before = await bridges(channel);
    const streams = await Promise.all([1, 2, 3].map(() => provider.connect!(machine, 7000, { template })));
    assert.equal(await bridges(channel), before + 3);
    for (const s of streams) s.destroy();
    let now = -1;
    for (let i = 0; i < 50 && now !== before; i++) { await new Promise((r) => setTimeout(r, 100)); now = await bridges(channel); }
    assert.equal(now, before, 'no bridge process is left in the container');
  });

  it('GuestPorts.forward gives a unix socket that reaches the guest port; close() drops it', async () => {
    const ports = new GuestPorts((port, signal) => provider.connect!(machine, port, { template, signal }));
    const ep = await ports.forward(7000);
    assert.match(ep.path ?? '', /\/7000\.sock$/);
    assert.deepEqual(await ports.forward(7000), ep, 'the same port gives the same address');
    const sock = netConnect(ep);
    const reply = await roundTrip(sock, Buffer.from('hello through the forward'));
    assert.match(reply.toString(), /hello through the forward$/);
    assert.equal(ports.open, 1, 'only the listener is left once the connection ended');
    await ports.close();
    assert.equal(ports.open, 0);
    await assert.rejects(new Promise((resolve, reject) => { const s = netConnect(ep); s.on('connect', resolve); s.on('error', reject); }), /ENOENT/);
  });
});
