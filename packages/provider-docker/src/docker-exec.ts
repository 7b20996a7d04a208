/**
 * Plain Engine-API exec: one `POST /containers/{id}/exec` + hijacked start per call. Costs a runc
 * exec each time, so the channel only uses it when the persistent helper cannot start (no perl in
 * the image) and to start the helper itself.
 */
import type { Duplex } from 'node:stream';
import type { ExecResult } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { CappedBuffer, DockerDemuxer } from './docker-stream.ts';

export interface RawExecRequest {
  argv: string[];
  user: string;
  cwd?: string;
  env?: Record<string, string>;
  stdin?: Buffer;
  timeoutMs: number;
  maxOutputBytes: number;
}

/** Create an exec and hijack its start; the caller owns the returned socket. */
export async function startExec(docker: DockerClient, containerId: string, req: { argv: string[]; user: string; cwd?: string; env?: Record<string, string>; stdin: boolean }): Promise<{ execId: string; socket: Duplex; head: Buffer }> {
  const created = await docker.json<{ Id: string }>('POST', `/containers/${encodeURIComponent(containerId)}/exec`, {
    body: {
      AttachStdin: req.stdin,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      Cmd: req.argv,
      User: req.user,
      ...(req.cwd ? { WorkingDir: req.cwd } : {}),
      ...(req.env ? { Env: Object.entries(req.env).map(([k, v]) => `${k}=${v}`) } : {}),
    },
  });
  const { socket, head } = await docker.hijack(`/exec/${created.Id}/start`, { Detach: false, Tty: false });
  return { execId: created.Id, socket, head };
}

export async function rawExec(docker: DockerClient, containerId: string, req: RawExecRequest): Promise<ExecResult> {
  const { execId, socket, head } = await startExec(docker, containerId, { ...req, stdin: true });
  const stdout = new CappedBuffer(req.maxOutputBytes);
  const stderr = new CappedBuffer(req.maxOutputBytes);
  const demux = new DockerDemuxer((stream, data) => (stream === 2 ? stderr : stdout).push(data));
  let timedOut = false;
  await new Promise<void>((resolve) => {
    // The Engine API cannot kill an exec: on timeout we drop the connection and report it.
    const timer = setTimeout(() => { timedOut = true; socket.destroy(); }, req.timeoutMs);
    socket.on('data', (d: Buffer) => demux.push(d));
    socket.on('close', () => { clearTimeout(timer); resolve(); });
    socket.on('error', () => {});
    if (head.length) demux.push(head);
    socket.end(req.stdin ?? Buffer.alloc(0));
  });
  let exitCode: number | null = null;
  if (!timedOut) {
    const info = await docker.json<{ ExitCode: number | null; Running: boolean }>('GET', `/exec/${execId}/json`);
    exitCode = info.Running ? null : info.ExitCode;
  }
  return { exit_code: exitCode, stdout: stdout.toBuffer(), stderr: stderr.toBuffer(), timed_out: timedOut, truncated: stdout.truncated || stderr.truncated };
}
