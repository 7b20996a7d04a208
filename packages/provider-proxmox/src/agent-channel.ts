/**
 * GuestChannel through the QEMU guest agent's Proxmox endpoints, for guests without SSH or when a
 * template asks for it. exec: argv (never a shell string) + input-data, then exec-status polled
 * until exit; a timeout or a cancelled call (options.signal) kills the guest pid with a second
 * exec of `kill -KILL <pid>`. Files move within the agent's limits: file-write
 * takes ≤ 61,440 chars per call (so ≤ 45 KiB of binary as base64 with encode=0; bigger files are
 * written in parts and joined in the guest); file-read returns per-MiB base64 segments with
 * decode=0 on PVE ≥ 9.1, and on older versions files are read as `base64` output of an exec.
 */
import { posix } from 'node:path';
import { VmhubError, type ExecOptions, type ExecResult, type GetFileOptions, type GuestChannel, type PutFileOptions } from '@vmhub/core';
import { killedResult } from './exec-result.ts';
import { sleep, type PveClient } from './pve-client.ts';
import { SOURCE, toVmhubError } from './pve-errors.ts';

export interface AgentTarget {
  client: PveClient;
  node: string;
  vmid: number;
  /** PVE release, e.g. 9.1 or 8.4. */
  release: number;
  home?: string;
}

/** file-write's `content` limit (chars). */
export const FILE_WRITE_MAX_CHARS = 61_440;
/** Raw bytes per file-write call: 61,440 base64 chars. */
export const FILE_WRITE_CHUNK_BYTES = (FILE_WRITE_MAX_CHARS / 4) * 3;
/** input-data limit (chars). */
export const INPUT_DATA_MAX_CHARS = 65_536;
/** One full 1 MiB file-read chunk as base64. */
const READ_SEGMENT_CHARS = 1_398_104;
const READ_MAX = 16 * 1024 * 1024;
/** SIGKILLs every descendant of pid $1, deepest first (pgrep from procps or busybox). */
export const KILL_DESCENDANTS = 'k() { for c in $(pgrep -P "$1"); do k "$c"; done; kill -KILL "$1"; }; for c in $(pgrep -P "$1"); do k "$c"; done';

interface ExecStatus {
  exited: number | boolean;
  exitcode?: number;
  signal?: number;
  'out-data'?: string;
  'err-data'?: string;
  'out-truncated'?: number | boolean;
  'err-truncated'?: number | boolean;
}

function isUtf8(data: Buffer): boolean {
  return Buffer.from(data.toString('utf8'), 'utf8').equals(data);
}

export class AgentChannel implements GuestChannel {
  readonly #t: AgentTarget;
  readonly home: string | undefined;
  #closed = false;

  constructor(target: AgentTarget) {
    this.#t = target;
    this.home = target.home;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get #base(): string {
    return `/nodes/${this.#t.node}/qemu/${this.#t.vmid}/agent`;
  }

  async exec(argv: string[], options: ExecOptions = {}, probe = false): Promise<ExecResult> {
    if (this.#closed) throw new VmhubError('LEASE_NOT_READY', `[vmhub] [${SOURCE}] guest-agent channel of VM ${this.#t.vmid} is closed`, { source: SOURCE });
    if (argv.length === 0) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] exec needs a non-empty argv`, { source: SOURCE });
    let command = [...argv];
    const env = Object.entries(options.env ?? {});
    if (env.length) command = ['env', ...env.map(([k, v]) => `${k}=${v}`), ...command];
    if (options.user) command = ['runuser', '-u', options.user, '--', ...command];
    if (options.cwd) command = ['sh', '-c', 'cd -- "$1" || exit 126; shift; exec "$@"', 'sh', options.cwd, ...command];
    // runuser and the base64 pipe fork: the command is then not the pid the agent reports.
    let forks = Boolean(options.user);
    let input: string | undefined;
    if (options.stdin !== undefined) {
      const buf = typeof options.stdin === 'string' ? Buffer.from(options.stdin) : options.stdin;
      if (isUtf8(buf) && buf.toString('utf8').length <= INPUT_DATA_MAX_CHARS) {
        input = buf.toString('utf8');
      } else {
        // Binary-safe: the agent passes text, so send base64 and decode in the guest.
        input = buf.toString('base64');
        command = ['sh', '-c', 'base64 -d | "$@"', 'sh', ...command];
        forks = true;
      }
      if (input.length > INPUT_DATA_MAX_CHARS) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] stdin of ${buf.length} bytes is over the guest agent's ${INPUT_DATA_MAX_CHARS}-char input-data limit: put the data in a file with putFile instead`, { source: SOURCE });
    }
    const timeoutMs = options.timeoutMs ?? 30_000;
    const max = options.maxOutputBytes ?? 1024 * 1024;
    const signal = options.signal;
    // Already cancelled: the command never starts.
    if (signal?.aborted) return killedResult();
    let started: { pid: number };
    try {
      // Running a command twice is not harmless, so only readiness probes retry. Not cancellable in
      // flight: the agent may start the process, and its pid is needed to kill it.
      started = await this.#t.client.post<{ pid: number }>(`${this.#base}/exec`, { command, 'input-data': input }, { retry: probe ? 'transient' : 'none' });
    } catch (err) {
      throw toVmhubError(err, `guest-agent exec on VM ${this.#t.vmid}`);
    }
    const deadline = Date.now() + timeoutMs;
    let wait = 50;
    for (;;) {
      if (signal?.aborted) return this.#kill(started.pid, forks);
      let st: ExecStatus;
      try {
        st = await this.#t.client.get<ExecStatus>(`${this.#base}/exec-status`, { pid: started.pid }, { signal });
      } catch (err) {
        if (signal?.aborted) return this.#kill(started.pid, forks);
        throw toVmhubError(err, `guest-agent exec-status of pid ${started.pid} on VM ${this.#t.vmid}`);
      }
      if (st.exited === 1 || st.exited === true) {
        const out = Buffer.from(st['out-data'] ?? '', 'utf8');
        const errb = Buffer.from(st['err-data'] ?? '', 'utf8');
        const truncated = Boolean(st['out-truncated']) || Boolean(st['err-truncated']) || out.length > max || errb.length > max;
        return { exit_code: typeof st.exitcode === 'number' ? st.exitcode : null, stdout: out.subarray(0, max), stderr: errb.subarray(0, max), timed_out: false, truncated };
      }
      if (Date.now() >= deadline) return this.#kill(started.pid, forks);
      // Ends early (rejecting) on abort; the loop's first line then kills.
      await sleep(Math.min(wait, Math.max(0, deadline - Date.now())), signal).catch(() => undefined);
      wait = Math.min(wait * 2, 1000);
    }
  }

  /**
   * Timeout or cancellation: the agent has no kill command, so another exec kills the pid it gave.
   * When our wrapper forks (runuser, the base64 pipe) the command is a descendant that SIGKILL of
   * the wrapper would orphan, so the descendants go first (fixed script; the pid is its argument).
   */
  async #kill(pid: number, forks: boolean): Promise<ExecResult> {
    const run = (command: string[]): Promise<unknown> => this.#t.client.post(`${this.#base}/exec`, { command }, { retry: 'none' }).catch(() => undefined);
    if (forks) await run(['sh', '-c', KILL_DESCENDANTS, 'sh', String(pid)]);
    await run(['kill', '-KILL', String(pid)]);
    return killedResult();
  }

  async #must(argv: string[], what: string): Promise<ExecResult> {
    const r = await this.exec(argv, { timeoutMs: 60_000, maxOutputBytes: 24 * 1024 * 1024 });
    if (r.exit_code !== 0) {
      const text = r.stderr.toString().trim();
      if (/no such file/i.test(text)) throw new VmhubError('NOT_FOUND', `[vmhub] [${SOURCE}] ${what}: ${text}`, { source: SOURCE });
      throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${what} failed (exit ${r.exit_code}${r.timed_out ? ', timed out' : ''}): ${text.slice(0, 500)}`, { source: SOURCE });
    }
    return r;
  }

  async #write(file: string, b64: string): Promise<void> {
    try {
      await this.#t.client.post(`${this.#base}/file-write`, { file, content: b64, encode: false });
    } catch (err) {
      throw toVmhubError(err, `guest-agent file-write of ${file} on VM ${this.#t.vmid}`);
    }
  }

  async putFile(path: string, data: Buffer, options: PutFileOptions = {}): Promise<void> {
    await this.#must(['mkdir', '-p', '--', posix.dirname(path)], `creating ${posix.dirname(path)}`);
    if (data.length <= FILE_WRITE_CHUNK_BYTES) {
      await this.#write(path, data.toString('base64'));
    } else {
      const parts: string[] = [];
      for (let off = 0, i = 0; off < data.length; off += FILE_WRITE_CHUNK_BYTES, i++) {
        const part = `${path}.vmhub-part-${i}`;
        await this.#write(part, data.subarray(off, off + FILE_WRITE_CHUNK_BYTES).toString('base64'));
        parts.push(part);
      }
      await this.#must(['sh', '-c', 'out="$1"; shift; cat -- "$@" > "$out" && rm -f -- "$@"', 'sh', path, ...parts], `joining ${parts.length} parts into ${path}`);
    }
    if (options.mode !== undefined) await this.#must(['chmod', options.mode.toString(8), '--', path], `chmod ${path}`);
    if (options.user) await this.#must(['chown', '--', options.user, path], `chown ${path}`);
  }

  async getFile(path: string, options: GetFileOptions = {}): Promise<Buffer> {
    const max = options.maxBytes ?? READ_MAX;
    const st = await this.#must(['stat', '-L', '-c', '%s', '--', path], `stat ${path}`);
    const size = Number(st.stdout.toString().trim());
    if (!Number.isFinite(size)) throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] stat of ${path} gave "${st.stdout.toString().slice(0, 40)}"`, { source: SOURCE });
    if (size > max) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is ${size} bytes, over the ${max}-byte cap: raise max_bytes or fetch a smaller file`, { source: SOURCE, details: { size, max_bytes: max } });
    if (this.#t.release >= 9.1) {
      const chunks: Buffer[] = [];
      let offset = 0;
      do {
        let r: { content: string; 'bytes-read'?: number; truncated?: number | boolean };
        try {
          r = await this.#t.client.get(`${this.#base}/file-read`, { file: path, decode: false, offset, count: Math.min(READ_MAX, Math.max(1, size - offset)) });
        } catch (err) {
          throw toVmhubError(err, `guest-agent file-read of ${path} on VM ${this.#t.vmid}`);
        }
        const buf = decodeSegments(r.content);
        chunks.push(buf);
        offset += buf.length;
        if (buf.length === 0 || !r.truncated) break;
      } while (offset < size);
      return Buffer.concat(chunks);
    }
    // PVE < 9.1: file-read returns the bytes as a JSON string (not binary-safe); use base64 via exec.
    const r = await this.#must(['base64', '-w', '0', '--', path], `reading ${path}`);
    return Buffer.from(r.stdout.toString().trim(), 'base64');
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

/** file-read with decode=0 concatenates each 1 MiB chunk's own base64: decode per segment. */
export function decodeSegments(content: string): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < content.length; i += READ_SEGMENT_CHARS) out.push(Buffer.from(content.slice(i, i + READ_SEGMENT_CHARS), 'base64'));
  return Buffer.concat(out);
}
