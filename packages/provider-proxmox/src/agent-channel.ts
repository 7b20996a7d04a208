/**
 * GuestChannel through the QEMU guest agent's Proxmox endpoints, for guests without SSH or when a
 * template asks for it. The agent runs as root, so everything runs as the channel's desktop user
 * (the template's `agent_user`, else its cloud-init user) through `runuser -u USER --`: execs,
 * and the file operations too — the user's process opens the file, so the guest's kernel checks
 * that user's rights and resolves symlinks for it; only root's own steps (temp parts in a
 * root-only directory) bypass it. exec: argv (never a shell string) + input-data, then
 * exec-status polled until exit; a timeout or a cancelled call (options.signal) kills the guest
 * pid with a second exec of `kill -KILL <pid>`. Files move within the agent's limits: up to
 * 48 KiB go as the stdin of one exec; bigger ones are file-written (≤ 61,440 chars per call) in
 * parts into a private temp directory and piped to the user's writer; reads are `base64` output
 * of an exec as the user, or (over 12 MiB, PVE ≥ 9.1) a copy the user's `cat` makes into the temp
 * directory, read back with file-read's per-MiB base64 segments. Failures are typed in guest terms.
 */
import { randomUUID } from 'node:crypto';
import { posix } from 'node:path';
import { VmhubError, type ExecOptions, type ExecResult, type GetFileOptions, type GuestChannel, type PutFileOptions } from '@vmhub/core';
import { killedResult } from './exec-result.ts';
import { errnoFromText, fsError, putTempPath, type FsOp } from '@vmhub/core';
import { sleep, type PveClient } from './pve-client.ts';
import { SOURCE, toVmhubError } from './pve-errors.ts';

export interface AgentTarget {
  client: PveClient;
  node: string;
  vmid: number;
  /** PVE release, e.g. 9.1 or 8.4. */
  release: number;
  home?: string;
  /** Whose rights execs and files use (runuser); default root, the agent's own user. */
  user?: string;
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
/** Files up to this size are read as base64 on one exec's stdout (qemu-ga captures 16 MiB). */
const EXEC_READ_MAX = 12 * 1024 * 1024;
/**
 * The user's writer (`sh -c W sh DIR PATH MODE TEMP`): parent directories, then the bytes into
 * TEMP (a sibling of PATH, core's putTempPath) opened by the user's shell, renamed over PATH
 * once written (GuestChannel.putFile is atomic); TEMP goes on failure. The agent hands the
 * command its whole input at once, so no count check is needed. A directory at PATH is named as
 * such by cat. Kept to the shell subset the PVE simulator's guest speaks (no if, no braces).
 */
const writer = (mode: string): string => `[ -d "$2" ] && exec cat -- "$2"; mkdir -p -- "$1" && cat > "$4" && ${mode} && mv -f -- "$4" "$2" && exit 0; rm -f -- "$4"; exit 3`;
/** No mode given: an existing file's permission bits are kept. */
const WRITE_SH = writer(`sh -c '[ -f "$1" ] && chmod --reference="$1" -- "$2"; exit 0' sh "$2" "$4"`);
const WRITE_MODE_SH = writer('chmod "$3" "$4"');
/** Root's side of a large write: the parts, in order, into the user's writer; then the parts go. */
const JOIN_SH = 'u=$1; s=$2; t=$3; d=$4; p=$5; m=$6; w=$7; shift 7; cat -- "$@" | runuser -u "$u" -- sh -c "$s" sh "$d" "$p" "$m" "$w"; r=$?; rm -f -- "$@"; rm -rf -- "$t"; exit $r';
const JOIN_ROOT_SH = 'u=$1; s=$2; t=$3; d=$4; p=$5; m=$6; w=$7; shift 7; cat -- "$@" | sh -c "$s" sh "$d" "$p" "$m" "$w"; r=$?; rm -f -- "$@"; rm -rf -- "$t"; exit $r';
/** Root's side of a large read: the user's `cat` opens the file, root's shell holds the copy. */
const COPY_SH = 'mkdir -p -m 700 -- "$1" && runuser -u "$2" -- cat -- "$3" > "$1/f"';
/**
 * SIGKILLs every descendant of pid $1, deepest first (pgrep from procps or busybox). A process
 * already gone when its turn comes (a subshell whose `wait` returned once its child was killed)
 * is what was wanted: only one still there after its kill makes the status non-zero.
 */
export const KILL_DESCENDANTS = 'k() { for c in $(pgrep -P "$1"); do k "$c"; done; kill -KILL "$1" 2>/dev/null || ! kill -0 "$1" 2>/dev/null; }; for c in $(pgrep -P "$1"); do k "$c"; done';

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
    const user = options.user ?? this.#t.user;
    const switches = user !== undefined && user !== 'root';
    if (switches) command = ['runuser', '-u', user, '--', ...command];
    if (options.cwd) command = ['sh', '-c', 'cd -- "$1" || exit 126; shift; exec "$@"', 'sh', options.cwd, ...command];
    // runuser and the base64 pipe fork: the command is then not the pid the agent reports.
    let forks = switches;
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

  /** A command file operations depend on, run as root; failures are typed in guest terms. */
  async #must(argv: string[], what: string, c: { op: FsOp; path: string }): Promise<ExecResult> {
    const r = await this.exec(argv, { user: 'root', timeoutMs: 60_000, maxOutputBytes: 24 * 1024 * 1024 });
    if (r.exit_code !== 0) throw this.#failure(r, { ...c, user: 'root' }, what);
    return r;
  }

  /** The typed error for a failed file command, from the errno its message names. */
  #failure(r: ExecResult, c: { op: FsOp; path: string; user: string }, what: string): VmhubError {
    const text = r.stderr.toString().trim();
    if (r.timed_out) return new VmhubError('TIMEOUT', `[vmhub] [${SOURCE}] ${what} on VM ${this.#t.vmid} did not finish in time`, { source: SOURCE });
    const errno = errnoFromText(text);
    const typed = errno ? fsError(errno, { ...c, source: SOURCE }) : undefined;
    if (typed) return typed;
    if (r.exit_code === 127) return new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${what}: a tool it needs is missing in the guest: ${text.slice(0, 200)}`, { source: SOURCE });
    return new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${what} failed (exit ${r.exit_code}): ${text.slice(0, 500)}`, { source: SOURCE });
  }

  async #write(file: string, b64: string): Promise<void> {
    try {
      await this.#t.client.post(`${this.#base}/file-write`, { file, content: b64, encode: false });
    } catch (err) {
      throw toVmhubError(err, `guest-agent file-write of ${file} on VM ${this.#t.vmid}`);
    }
  }

  #user(requested?: string): string {
    return requested ?? this.#t.user ?? 'root';
  }

  async putFile(path: string, data: Buffer, options: PutFileOptions = {}): Promise<void> {
    const user = this.#user(options.user);
    const mode = options.mode === undefined ? '' : (options.mode & 0o7777).toString(8);
    const script = mode ? WRITE_MODE_SH : WRITE_SH;
    const c = { op: 'write' as const, path, user };
    const args = [posix.dirname(path), path, mode, putTempPath(path)];
    const fits = isUtf8(data) ? data.toString('utf8').length <= INPUT_DATA_MAX_CHARS : Math.ceil(data.length / 3) * 4 <= INPUT_DATA_MAX_CHARS;
    if (fits) {
      const r = await this.exec(['sh', '-c', script, 'sh', ...args], { user, stdin: data, timeoutMs: 60_000 });
      if (r.exit_code !== 0) throw this.#failure(r, c, `writing ${path} as ${user}`);
      return;
    }
    // Too big for one input-data: root writes the parts where only root can read them, then
    // pipes them to the user's writer, which opens the destination with the user's rights.
    const tmp = `/tmp/vmhub-put-${randomUUID()}`;
    await this.#must(['mkdir', '-p', '-m', '700', '--', tmp], `creating a private temp directory for ${path}`, { op: 'write', path: tmp });
    const parts: string[] = [];
    try {
      for (let off = 0, i = 0; off < data.length; off += FILE_WRITE_CHUNK_BYTES, i++) {
        const part = `${tmp}/part-${String(i).padStart(6, '0')}`;
        await this.#write(part, data.subarray(off, off + FILE_WRITE_CHUNK_BYTES).toString('base64'));
        parts.push(part);
      }
    } catch (err) {
      await this.exec(['rm', '-rf', '--', tmp], { user: 'root', timeoutMs: 30_000 }).catch(() => undefined);
      throw err;
    }
    const join = user === 'root' ? JOIN_ROOT_SH : JOIN_SH;
    const r = await this.exec(['sh', '-c', join, 'sh', user, script, tmp, ...args, ...parts], { user: 'root', timeoutMs: 120_000 });
    if (r.exit_code !== 0) throw this.#failure(r, c, `writing ${path} as ${user} (${parts.length} parts)`);
  }

  async getFile(path: string, options: GetFileOptions = {}): Promise<Buffer> {
    const max = options.maxBytes ?? READ_MAX;
    const user = this.#user();
    const c = { op: 'read' as const, path, user };
    const st = await this.exec(['stat', '-L', '-c', '%F %s', '--', path], { user, timeoutMs: 60_000 });
    if (st.exit_code !== 0) throw this.#failure(st, c, `stat ${path}`);
    const m = /^(.*) (\d+)\s*$/.exec(st.stdout.toString());
    if (!m) throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] stat of ${path} gave "${st.stdout.toString().slice(0, 40)}"`, { source: SOURCE });
    if (m[1] === 'directory') throw fsError('EISDIR', { ...c, source: SOURCE })!;
    if (!/regular/.test(m[1]!)) throw fsError('ENOTREG', { ...c, source: SOURCE })!;
    const size = Number(m[2]);
    if (size > max) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is ${size} bytes, over the ${max}-byte cap: raise max_bytes or fetch a smaller file`, { source: SOURCE, details: { size, max_bytes: max } });
    let data: Buffer;
    if (size <= EXEC_READ_MAX || this.#t.release < 9.1) {
      // The user's base64 opens the file: its rights decide (and the output is binary-safe text).
      const r = await this.exec(['base64', '-w', '0', '--', path], { user, timeoutMs: 60_000, maxOutputBytes: 24 * 1024 * 1024 });
      if (r.exit_code !== 0) throw this.#failure(r, c, `reading ${path}`);
      if (r.truncated) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is too large for the guest agent's 16 MiB exec output on this PVE version: use the SSH channel or read it in parts with exec`, { source: SOURCE, details: { size } });
      data = Buffer.from(r.stdout.toString().trim(), 'base64');
    } else {
      data = await this.#readLarge(path, user, size, max, c);
    }
    if (data.length > max) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} grew over the ${max}-byte cap while reading`, { source: SOURCE });
    return data;
  }

  /** PVE ≥ 9.1, over 12 MiB: the user's `cat` copies into a root-only temp dir, file-read reads it. */
  async #readLarge(path: string, user: string, size: number, max: number, c: { op: FsOp; path: string; user: string }): Promise<Buffer> {
    const tmp = `/tmp/vmhub-get-${randomUUID()}`;
    try {
      const copy = user === 'root' ? ['sh', '-c', 'mkdir -p -m 700 -- "$1" && cat -- "$3" > "$1/f"', 'sh', tmp, user, path] : ['sh', '-c', COPY_SH, 'sh', tmp, user, path];
      const r = await this.exec(copy, { user: 'root', timeoutMs: 120_000 });
      if (r.exit_code !== 0) throw this.#failure(r, c, `reading ${path}`);
      const chunks: Buffer[] = [];
      let offset = 0;
      do {
        let got: { content: string; 'bytes-read'?: number; truncated?: number | boolean };
        try {
          got = await this.#t.client.get(`${this.#base}/file-read`, { file: `${tmp}/f`, decode: false, offset, count: Math.min(READ_MAX, Math.max(1, size - offset)) });
        } catch (err) {
          throw toVmhubError(err, `guest-agent file-read of ${path} on VM ${this.#t.vmid}`);
        }
        const buf = decodeSegments(got.content);
        chunks.push(buf);
        offset += buf.length;
        if (buf.length === 0 || !got.truncated || offset > max) break;
      } while (offset < size);
      return Buffer.concat(chunks);
    } finally {
      await this.exec(['rm', '-rf', '--', tmp], { user: 'root', timeoutMs: 30_000 }).catch(() => undefined);
    }
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
