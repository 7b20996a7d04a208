/**
 * logs(): the end of the lease's container log — what its main process (the golden's entrypoint:
 * tini and the desktop session, Xvfb's and openbox's messages) wrote to stdout and stderr, as
 * the engine keeps it (`GET /containers/{id}/logs?stdout=1&stderr=1&tail=N`). The container has
 * no TTY, so the answer is multiplexed frames (docker-stream.ts), taken in order, both streams
 * together. Only the last `max_bytes` are kept while reading. A logging driver the engine cannot
 * read back (`none`, syslog…) is CAPABILITY_UNAVAILABLE naming it.
 */
import { VmhubError, type MachineLog, type MachineRef } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { leaseContainer } from './docker-create.ts';
import { DockerDemuxer } from './docker-stream.ts';

const SOURCE = 'provider-docker';

export async function containerLogs(docker: DockerClient, machine: MachineRef, options: { tail: number; max_bytes: number; signal: AbortSignal }): Promise<MachineLog> {
  const c = await leaseContainer(docker, machine, options.signal);
  // One line more than asked: its presence says the log goes on before what is shown.
  const res = await docker.stream('GET', `/containers/${c.Id}/logs`, { query: { stdout: true, stderr: true, tail: options.tail + 1 }, signal: options.signal });
  const chunks: Buffer[] = [];
  let kept = 0;
  let cut = false;
  const keep = (data: Buffer) => {
    chunks.push(data);
    kept += data.length;
    while (kept - chunks[0]!.length > options.max_bytes) { kept -= chunks.shift()!.length; cut = true; }
  };
  const demux = new DockerDemuxer((_stream, data) => keep(Buffer.from(data)));
  const raw: Buffer[] = [];
  for await (const chunk of res) (res.statusCode ?? 0) >= 400 ? raw.push(chunk as Buffer) : demux.push(chunk as Buffer);
  if ((res.statusCode ?? 0) >= 400) {
    const err = docker.httpError('GET', `/containers/${machine.identity}/logs`, res.statusCode ?? 0, Buffer.concat(raw));
    if (/does not support reading|configured logging driver/i.test(err.message)) {
      throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] the container log of ${machine.identity} cannot be read back: ${err.details?.docker_message ?? err.message}`, { source: SOURCE, hint: 'Use the json-file or local logging driver on the Docker host (docs/providers/docker.md, "Logs").' });
    }
    throw err;
  }
  let text = Buffer.concat(chunks).toString('utf8');
  if (cut) text = text.slice(text.indexOf('\n') + 1); // the first line may have been cut in two
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  const lines = all.slice(-options.tail);
  return { source: 'container output (stdout and stderr of its main process)', lines, truncated: cut || all.length > options.tail };
}
