/**
 * Plain Engine-API exec: one `POST /containers/{id}/exec` + hijacked start per call. Costs a runc
 * exec each time, so the channel only uses it when the persistent helper cannot start (no perl in
 * the image) and to start the helper itself.
 */
import { randomUUID } from 'node:crypto';
import type { Duplex, Readable } from 'node:stream';
import { CappedOutput, type ExecResult } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { DockerDemuxer } from './docker-stream.ts';

export interface RawExecRequest {
  argv: string[];
  user: string;
  cwd?: string;
  env?: Record<string, string>;
  /** Bytes, or a stream piped in with backpressure (a clone's tar); an error on it kills the exec and is rethrown. */
  stdin?: Buffer | Readable;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Aborting kills the command as the timeout does. */
  signal?: AbortSignal;
}

// The Engine API cannot kill an exec, and the exec's Pid is a host pid the guest cannot map. So
// every plain exec carries a random token in its environment (inherited by its children), and a
// kill is a second exec, as the same user (only it may read those processes' environ), that kills
// every process carrying the token.
export const TOKEN_VAR = 'VMHUB_EXEC_TOKEN';
const KILL_SCRIPT = 'p=; for d in /proc/[0-9]*; do grep -qsF "$1" "$d/environ" && p="$p ${d#/proc/}"; done; [ -z "$p" ] || kill -KILL $p 2>/dev/null; exit 0';

export async function killByToken(docker: DockerClient, containerId: string, user: string, token: string): Promise<string> {
  try {
    const r = await rawExec(docker, containerId, { argv: ['sh', '-c', KILL_SCRIPT, 'sh', `${TOKEN_VAR}=${token}`], user, timeoutMs: 10_000, maxOutputBytes: 4096 });
    return r.exit_code === 0 ? '' : `\n[vmhub] killing the exec failed (exit ${r.exit_code}): ${r.stderr.toString('utf8').trim()}\n`;
  } catch (err) {
    return `\n[vmhub] killing the exec failed: ${(err as Error).message}\n`;
  }
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
  const token = randomUUID();
  const { execId, socket, head } = await startExec(docker, containerId, { ...req, env: { ...req.env, [TOKEN_VAR]: token }, stdin: true });
  const stdout = new CappedOutput(req.maxOutputBytes);
  const stderr = new CappedOutput(req.maxOutputBytes);
  const demux = new DockerDemuxer((stream, data) => (stream === 2 ? stderr : stdout).push(data));
  let timedOut = false;
  let killed: Promise<string> | undefined;
  let stdinError: unknown;
  await new Promise<void>((resolve) => {
    // Timeout and abort: drop the connection (exec resolves) and kill the processes in the guest.
    const kill = (): void => {
      if (timedOut || socket.destroyed) return;
      timedOut = true;
      socket.destroy();
      killed = killByToken(docker, containerId, req.user, token);
    };
    const timer = setTimeout(kill, req.timeoutMs);
    req.signal?.addEventListener('abort', kill, { once: true });
    socket.on('data', (d: Buffer) => demux.push(d));
    socket.on('close', () => { clearTimeout(timer); req.signal?.removeEventListener('abort', kill); resolve(); });
    socket.on('error', () => {});
    if (head.length) demux.push(head);
    if (req.signal?.aborted) return kill();
    const stdin = req.stdin;
    if (stdin && !Buffer.isBuffer(stdin)) {
      stdin.on('error', (e) => { stdinError ??= e; kill(); });
      stdin.pipe(socket);
    } else socket.end(stdin ?? Buffer.alloc(0));
  });
  const note = killed && (await killed);
  if (stdinError) throw stdinError;
  if (note) stderr.push(Buffer.from(note));
  let exitCode: number | null = null;
  if (!timedOut) {
    const info = await docker.json<{ ExitCode: number | null; Running: boolean }>('GET', `/exec/${execId}/json`);
    exitCode = info.Running ? null : info.ExitCode;
  }
  return { exit_code: exitCode, stdout: stdout.toBuffer(), stderr: stderr.toBuffer(), timed_out: timedOut, truncated: stdout.truncated || stderr.truncated };
}
