/**
 * Provider.connect for containers: a byte stream to TCP `port` on the container's loopback,
 * without giving the container a network. Each stream is one docker exec running a small perl
 * bridge (perl-base is in every golden: the exec helper needs it too) that connects to
 * 127.0.0.1:<port> and copies bytes both ways; the exec's stdin is the stream's writable side
 * and its stdout (demultiplexed) the readable side. The bridge says "ok" on stderr once the
 * connection is up, so a refused port rejects here instead of yielding a stream that ends at once.
 * Ending the stream's writable side half-closes the guest connection (the server may still
 * answer); destroying the stream kills the bridge in the guest (by a token in its environment,
 * as a cancelled exec is killed), so nothing lingers behind a server that never hangs up.
 */
import { randomUUID } from 'node:crypto';
import { Duplex } from 'node:stream';
import { VmhubError, type MachineRef } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { killByToken, startExec, TOKEN_VAR } from './docker-exec.ts';
import { DockerDemuxer } from './docker-stream.ts';

const SOURCE = 'provider-docker';

const BRIDGE = [
  'use strict; use IO::Socket::INET; use IO::Select; use Socket qw(IPPROTO_TCP TCP_NODELAY);',
  'my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $ARGV[0], Proto => "tcp") or do { print STDERR "refused: $!\\n"; exit 111 };',
  'setsockopt($s, IPPROTO_TCP, TCP_NODELAY, 1);',
  'binmode STDIN; binmode STDOUT; binmode $s; syswrite STDERR, "ok\\n";',
  'my $sel = IO::Select->new(\\*STDIN, $s);',
  'sub put { my ($fh, $buf) = @_; while (length $buf) { my $w = syswrite($fh, $buf); exit 0 unless defined $w && $w > 0; substr($buf, 0, $w) = "" } }',
  // stdin at EOF: half-close toward the server (it may still answer); the server at EOF: done.
  'while (1) { for my $fh ($sel->can_read) { my $n = sysread($fh, my $buf, 65536);',
  '  if (!$n) { exit 0 if $fh == $s; $sel->remove(\\*STDIN); shutdown($s, 1); next }',
  '  put($fh == $s ? \\*STDOUT : $s, $buf) } }',
].join('\n');

export async function connectPort(docker: DockerClient, machine: MachineRef, port: number, user: string, signal?: AbortSignal): Promise<Duplex> {
  if (signal?.aborted) throw new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] connect to port ${port} of ${machine.identity} cancelled`, { source: SOURCE });
  const token = randomUUID();
  const { socket, head } = await startExec(docker, machine.external_id, { argv: ['perl', '-e', BRIDGE, String(port)], user, stdin: true, env: { [TOKEN_VAR]: token } });
  let ended = false;
  return new Promise<Duplex>((resolve, reject) => {
    let opened = false;
    let stderr = '';
    const stream = new Duplex({
      write(chunk: Buffer, _enc, cb) { socket.write(chunk, cb); },
      final(cb) { socket.end(); cb(); },
      read() { socket.resume(); },
      destroy(err, cb) {
        if (!ended) void killByToken(docker, machine.external_id, user, token);
        socket.destroy();
        cb(err);
      },
    });
    const fail = (why: string): void => {
      socket.destroy();
      reject(new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] port ${port} of ${machine.identity} does not answer: ${why}`, { source: SOURCE, retryable: true, hint: 'The service in the machine is not listening (yet): wait for the lease to be ready, or check the golden starts it.' }));
    };
    const demux = new DockerDemuxer((kind, data) => {
      if (kind === 1) { if (!stream.push(data)) socket.pause(); return; }
      stderr += data.toString('utf8');
      if (!opened && stderr.startsWith('ok\n')) {
        opened = true;
        signal?.removeEventListener('abort', onAbort);
        resolve(stream);
      }
    });
    const onAbort = (): void => fail('cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.on('data', (d: Buffer) => demux.push(d));
    socket.on('error', (err) => { if (opened) stream.destroy(err); });
    socket.on('close', () => {
      ended = true;
      signal?.removeEventListener('abort', onAbort);
      if (!opened) fail(stderr.trim() || 'the bridge ended before connecting (is perl in the image?)');
      else stream.push(null);
    });
    if (head.length) demux.push(head);
  });
}
