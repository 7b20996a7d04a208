/**
 * Host side of the persistent in-guest exec helper (helper/exec-helper.pl). One docker exec runs
 * the helper for the channel's lifetime; each exec() is a frame on that connection and a fork in
 * the guest, so an action costs a fork + exec (~ms) instead of a runc exec (~tens of ms).
 */
import { readFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { CappedOutput, VmhubError, type ExecResult } from '@vmhub/core';
import type { DockerClient } from './docker-client.ts';
import { startExec, type RawExecRequest } from './docker-exec.ts';
import { DockerDemuxer } from './docker-stream.ts';

// Read on the first channel, not at import: loading the provider does no I/O.
let script: string | undefined;
const helperScript = (): string => (script ??= readFileSync(new URL('../helper/exec-helper.pl', import.meta.url), 'utf8'));
const STDIN_CHUNK = 64 * 1024;

interface Job {
  stdout: CappedOutput;
  stderr: CappedOutput;
  timedOut: boolean;
  resolve: (r: ExecResult) => void;
  /** Clears the timer and the abort listener. */
  done: () => void;
}

/** The helper serves the same requests as a plain Engine-API exec, with stdin as bytes (streams go through a plain exec, which has backpressure). */
export type HelperExecRequest = Omit<RawExecRequest, 'stdin'> & { stdin?: Buffer };

function frame(type: string, id: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(9);
  h.writeUInt8(type.charCodeAt(0), 0);
  h.writeUInt32BE(id, 1);
  h.writeUInt32BE(payload.length, 5);
  return Buffer.concat([h, payload]);
}

function strings(values: string[]): Buffer {
  const parts: Buffer[] = [];
  for (const v of values) {
    const b = Buffer.from(v, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length);
    parts.push(len, b);
  }
  return Buffer.concat(parts);
}

export class ExecHelper {
  readonly #socket: Duplex;
  readonly #jobs = new Map<number, Job>();
  #nextId = 1;
  #buf: Buffer = Buffer.alloc(0);
  #closed: Error | undefined;
  #onReady?: (pid: string) => void;
  #diagnostics = '';

  private constructor(socket: Duplex) {
    this.#socket = socket;
  }

  /** Start the helper in the container; rejects when it does not say ready in `timeoutMs`. */
  static async start(docker: DockerClient, containerId: string, timeoutMs = 5000): Promise<ExecHelper> {
    const { socket, head } = await startExec(docker, containerId, { argv: ['perl', '-e', helperScript()], user: 'root', stdin: true });
    const helper = new ExecHelper(socket);
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready frame within ${timeoutMs} ms${helper.#diagnostics ? `: ${helper.#diagnostics.trim()}` : ''}`)), timeoutMs);
      helper.#onReady = () => { clearTimeout(timer); resolve(); };
      socket.once('close', () => { clearTimeout(timer); reject(new Error(`helper exited before it was ready${helper.#diagnostics ? `: ${helper.#diagnostics.trim()}` : ''}`)); });
    });
    const demux = new DockerDemuxer((stream, data) => {
      if (stream === 1) helper.#onData(data);
      else helper.#diagnostics = (helper.#diagnostics + data.toString('utf8')).slice(-2000);
    });
    socket.on('data', (d: Buffer) => demux.push(d));
    socket.on('error', (err) => helper.#fail(err));
    socket.on('close', () => helper.#fail(new Error(`helper connection closed${helper.#diagnostics ? `: ${helper.#diagnostics.trim()}` : ''}`)));
    if (head.length) demux.push(head);
    try {
      await ready;
    } catch (err) {
      socket.destroy();
      throw err;
    }
    return helper;
  }

  get alive(): boolean {
    return this.#closed === undefined;
  }

  #onData(chunk: Buffer): void {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    while (this.#buf.length >= 9) {
      const len = this.#buf.readUInt32BE(5);
      if (this.#buf.length < 9 + len) break;
      const type = String.fromCharCode(this.#buf[0]!);
      const id = this.#buf.readUInt32BE(1);
      const payload = this.#buf.subarray(9, 9 + len);
      this.#buf = this.#buf.subarray(9 + len);
      this.#onFrame(type, id, payload);
    }
  }

  #onFrame(type: string, id: number, payload: Buffer): void {
    if (type === 'P') return this.#onReady?.(payload.toString());
    const job = this.#jobs.get(id);
    if (!job) return;
    if (type === 'O') job.stdout.push(payload);
    else if (type === 'R') job.stderr.push(payload);
    else if (type === 'X') {
      this.#jobs.delete(id);
      job.done();
      const signaled = payload[0] === 1;
      job.resolve({
        exit_code: signaled || job.timedOut ? null : payload[1]!,
        stdout: job.stdout.toBuffer(),
        stderr: job.stderr.toBuffer(),
        timed_out: job.timedOut,
        truncated: job.stdout.truncated || job.stderr.truncated,
      });
    }
  }

  #fail(err: Error): void {
    if (this.#closed) return;
    this.#closed = err;
    for (const [id, job] of this.#jobs) {
      this.#jobs.delete(id);
      job.done();
      job.resolve({ exit_code: null, stdout: job.stdout.toBuffer(), stderr: Buffer.concat([job.stderr.toBuffer(), Buffer.from(`\n[vmhub] exec helper lost: ${err.message}\n`)]), timed_out: job.timedOut, truncated: job.stdout.truncated || job.stderr.truncated });
    }
  }

  exec(req: HelperExecRequest): Promise<ExecResult> {
    if (this.#closed) return Promise.reject(new VmhubError('INTERNAL', `[vmhub] [provider-docker] exec helper is gone: ${this.#closed.message}`, { source: 'provider-docker' }));
    const id = this.#nextId++;
    if (this.#nextId > 0xffffffff) this.#nextId = 1;
    const env = Object.entries(req.env ?? {}).map(([k, v]) => `${k}=${v}`);
    const head = Buffer.alloc(8);
    head.writeUInt32BE(env.length, 0);
    head.writeUInt32BE(req.argv.length, 4);
    return new Promise<ExecResult>((resolve) => {
      // Timeout and abort both kill the job's process group; its exit frame then resolves.
      const kill = (): void => {
        if (job.timedOut || !this.#jobs.has(id)) return;
        job.timedOut = true;
        this.#socket.write(frame('K', id));
      };
      const timer = setTimeout(kill, req.timeoutMs);
      const done = (): void => { clearTimeout(timer); req.signal?.removeEventListener('abort', kill); };
      const job: Job = { stdout: new CappedOutput(req.maxOutputBytes), stderr: new CappedOutput(req.maxOutputBytes), timedOut: false, resolve, done };
      this.#jobs.set(id, job);
      req.signal?.addEventListener('abort', kill, { once: true });
      const parts = [frame('S', id, Buffer.concat([head, strings([req.user, req.cwd ?? '', ...env, ...req.argv])]))];
      const stdin = req.stdin ?? Buffer.alloc(0);
      for (let off = 0; off < stdin.length; off += STDIN_CHUNK) parts.push(frame('I', id, stdin.subarray(off, off + STDIN_CHUNK)));
      parts.push(frame('E', id));
      this.#socket.write(Buffer.concat(parts));
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#socket.write(frame('Q', 0));
    this.#socket.end();
    this.#fail(new Error('channel closed'));
    setTimeout(() => this.#socket.destroy(), 1000).unref();
  }
}
