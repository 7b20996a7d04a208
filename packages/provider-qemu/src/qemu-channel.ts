/**
 * channel(): a NEW GuestChannel through the QEMU guest agent per call (virtio-serial port
 * `org.qemu.guest_agent.0`, host side `qga.sock`). Core opens one per lease session and closes
 * it when the session ends; the provider keeps none, and destroy() need not close them: when
 * qemu exits the socket closes, calls in flight reject, and close() resolves at once.
 *
 * exec is guest-exec + guest-exec-status polling (stdin as base64 input data); a timeout or a
 * cancelled call (options.signal) kills the pid with a second guest-exec of
 * `/bin/kill -KILL <pid>`, as the agent has no kill command.
 *
 * The agent runs as root. A template's `user` (the desktop user; default root, the only user of
 * the tiny-console goldens) makes the channel act as that user: execs go through `runuser -u`
 * (or busybox `su` where there is no runuser), and so do files — the user's own shell and `cat`
 * open them, so the guest's kernel checks that user's rights and resolves symlinks for it (4 MiB
 * per exec; reads as `cat`/`dd` output, which the agent returns base64-encoded). As root, files go
 * through guest-file-open/read/write/close in 1 MiB chunks, well under the agent's ~64 MiB message
 * limit. Either way a failure is typed in guest terms (a directory, a name over 255 bytes, a
 * symlink loop, permission denied → POLICY_DENIED), never a raw agent error.
 * A channel connects on first use and resyncs after every reconnect. The agent's socket serves
 * one client at a time, so a second channel of the same machine waits until the first is closed
 * (or fails after qmp_timeout_ms, saying so). close() is final: later calls reject.
 */
import { join, posix } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openAdbChannel } from '@vmhub/channel-adb';
import { VmhubError, type ExecOptions, type ExecResult, type GetFileOptions, type GuestChannel, type MachineRef, type PutFileOptions, type TemplateConfig } from '@vmhub/core';
import { errnoFromText, fsError, PUT_APPEND_SH, PUT_COMMIT_SH, PUT_CREATE_SH, putTempPath, type FsErrorContext } from '@vmhub/core';
import { templateOptions } from './options.ts';
import { QmpClient, QmpError } from './qmp-client.ts';
import { requireLive, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { FILES } from './state-dir.ts';

const CHUNK = 1024 * 1024;
/** Bytes per exec when the user's own process writes or reads (stdin / captured output). */
const USER_CHUNK = 4 * 1024 * 1024;
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/**
 * Run "$@" as user $0: util-linux runuser where there is one, else su (busybox's or
 * util-linux's; `--` keeps the command's own options away from su).
 */
const SWITCH_SH = 'if command -v runuser >/dev/null 2>&1; then exec runuser -u "$0" -- "$@"; fi; exec su -s /bin/sh -c \'exec "$@"\' "$0" -- sh "$@"';
/** SIGKILLs every descendant of pid $1, deepest first: what runuser/su started for a killed exec. */
const KILL_DESCENDANTS = 'k() { for c in $(pgrep -P "$1"); do k "$c"; done; kill -KILL "$1"; }; for c in $(pgrep -P "$1"); do k "$c"; done';

/** A name over the kernel's 255-byte limit fails in every guest: refused before any round trip. */
function preflight(c: Omit<FsErrorContext, 'source'>): void {
  if (c.path.split('/').some((p) => Buffer.byteLength(p) > 255)) throw fsError('ENAMETOOLONG', { ...c, source: SOURCE })!;
}

/** A failed file step, typed by the errno its message names; `fallback` when it names none. */
function fsFailure(text: string, c: Omit<FsErrorContext, 'source'>, fallback: () => VmhubError): VmhubError {
  const errno = errnoFromText(text);
  return (errno ? fsError(errno, { ...c, source: SOURCE }) : undefined) ?? fallback();
}

interface ExecStatus {
  exited: boolean;
  exitcode?: number;
  signal?: number;
  'out-data'?: string;
  'err-data'?: string;
  'out-truncated'?: boolean;
  'err-truncated'?: boolean;
}

/** What a timed-out or cancelled exec resolves with: no exit code. */
function cancelled(): ExecResult {
  return { exit_code: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), timed_out: true, truncated: false };
}

/** The provider's channel(): checks the template and the machine, then a new channel. */
export async function openChannel(rt: QemuRuntime, machine: MachineRef, template: TemplateConfig): Promise<GuestChannel> {
  const adb = templateOptions(template.provider_options).guest_channel;
  if (adb?.kind === 'adb') return openAdbGuestChannel(rt, machine, adb.port);
  if (!templateOptions(template.provider_options).guest_agent) {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] this template has no guest agent channel: set provider_options.guest_agent: true and install qemu-guest-agent in the golden`, { source: SOURCE });
  }
  const { dir, record } = await requireLive(rt, machine, 'channel');
  if (!record.guest_agent) {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${machine.identity} was started without a guest agent socket: this template has no guest agent channel`, { source: SOURCE });
  }
  return createQgaChannel({ socketPath: join(dir, FILES.qga), label: machine.identity, timeoutMs: rt.qmpTimeoutMs, user: templateOptions(template.provider_options).user });
}

export interface QgaChannelOptions {
  socketPath: string;
  label: string;
  /** Bound for connect + guest-sync and for each agent command, ms. */
  timeoutMs: number;
  /** The desktop user execs and files act as (the template's `user`). Default root, the agent's own. */
  user?: string;
}

export function createQgaChannel(options: QgaChannelOptions): GuestChannel {
  const desktopUser = options.user ?? 'root';
  let client: Promise<QmpClient> | undefined;
  let closed = false;

  // The agent's socket serves one client: concurrent callers share one connection attempt.
  const conn = async (): Promise<QmpClient> => {
    if (closed) throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] the guest agent channel to ${options.label} was closed: open a new one with channel()`, { source: SOURCE });
    const pending = client;
    if (pending) {
      const current = await pending.catch(() => undefined);
      if (current && !current.closed) return current;
      if (client !== pending) return conn();
    }
    client = QmpClient.connect(options.socketPath, { protocol: 'qga', timeoutMs: options.timeoutMs, label: options.label });
    return client;
  };

  const call = async <T>(command: string, args?: Record<string, unknown>, timeoutMs = options.timeoutMs): Promise<T> => {
    try {
      return (await (await conn()).execute(command, args, timeoutMs)) as T;
    } catch (err) {
      if (err instanceof QmpError) {
        const code = /no such file|not found/i.test(err.message) ? 'NOT_FOUND' : 'INVALID_REQUEST';
        throw new VmhubError(code, `[vmhub] [${SOURCE}] guest agent ${command}: ${err.message}`, { source: SOURCE, cause: err });
      }
      throw err;
    }
  };

  const exec = async (argv: string[], opts: ExecOptions = {}): Promise<ExecResult> => {
    if (argv.length === 0) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] exec needs a non-empty argv`, { source: SOURCE });
    const user = opts.user ?? desktopUser;
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const cap = opts.maxOutputBytes ?? 1024 * 1024;
    // The agent has no cwd parameter: a fixed shell snippet changes directory, the cwd and argv stay separate arguments.
    let full = opts.cwd ? ['/bin/sh', '-c', 'cd -- "$1" && shift && exec "$@"', 'sh', opts.cwd, ...argv] : argv;
    // The agent has no user parameter either: switch inside the guest (the cd then runs as the user too).
    const switches = user !== 'root';
    if (switches) full = ['/bin/sh', '-c', SWITCH_SH, user, ...full];
    const args: Record<string, unknown> = { path: full[0], arg: full.slice(1), 'capture-output': true };
    // The agent replaces the whole environment when env is given: keep a PATH so bare names resolve.
    if (opts.env) args.env = Object.entries({ PATH: DEFAULT_PATH, ...opts.env }).map(([k, v]) => `${k}=${v}`);
    if (opts.stdin !== undefined) args['input-data'] = Buffer.from(opts.stdin).toString('base64');
    const signal = opts.signal;
    // Already cancelled: the command never starts.
    if (signal?.aborted) return cancelled();
    // Not raced with the signal: once the agent has started the process, its pid is needed to kill it.
    const { pid } = await call<{ pid: number }>('guest-exec', args);
    // Timeout or cancellation: guest-exec-status has no kill, so another guest-exec kills the pid
    // (and first what runuser/su forked under it, which killing the pid alone would orphan).
    const kill = async (): Promise<ExecResult> => {
      if (switches) await call('guest-exec', { path: '/bin/sh', arg: ['-c', KILL_DESCENDANTS, 'sh', String(pid)] }).catch(() => undefined);
      await call('guest-exec', { path: '/bin/kill', arg: ['-KILL', String(pid)] }).catch(() => undefined);
      return cancelled();
    };
    const deadline = Date.now() + timeoutMs;
    let wait = 20;
    for (;;) {
      if (signal?.aborted) return kill();
      // A status call in flight is not abandoned (the connection answers in order); it is quick.
      const st = await call<ExecStatus>('guest-exec-status', { pid });
      if (st.exited) {
        const out = Buffer.from(st['out-data'] ?? '', 'base64');
        const errb = Buffer.from(st['err-data'] ?? '', 'base64');
        return {
          exit_code: st.exitcode ?? null,
          stdout: out.subarray(0, cap),
          stderr: errb.subarray(0, cap),
          timed_out: false,
          truncated: out.length > cap || errb.length > cap || !!st['out-truncated'] || !!st['err-truncated'],
        };
      }
      if (signal?.aborted || Date.now() >= deadline) return kill();
      // Ends early (rejecting) on abort; the loop's first line then kills.
      await sleep(Math.min(wait, Math.max(1, deadline - Date.now())), undefined, signal ? { signal } : {}).catch(() => undefined);
      wait = Math.min(wait * 2, 500);
    }
  };

  /** A step a file operation depends on: its failure fails the operation, typed. */
  const mustExec = async (argv: string[], what: string, c: Omit<FsErrorContext, 'source'>, exec_opts: ExecOptions = {}): Promise<ExecResult> => {
    const r = await exec(argv, { timeoutMs: options.timeoutMs, ...exec_opts });
    if (r.exit_code !== 0) {
      const text = r.timed_out ? 'timed out' : r.stderr.toString().trim();
      throw fsFailure(text, c, () => new VmhubError(r.timed_out ? 'TIMEOUT' : 'INVALID_REQUEST', `[vmhub] [${SOURCE}] ${what}: ${text.slice(0, 300)}`, { source: SOURCE }));
    }
    return r;
  };

  /** An agent file command; its errors (strerror text) typed for `c`. */
  const fileCall = async <T>(command: string, args: Record<string, unknown>, c: Omit<FsErrorContext, 'source'>): Promise<T> => {
    try {
      return await call<T>(command, args);
    } catch (err) {
      if (!VmhubError.is(err) || !(err.cause instanceof QmpError)) throw err;
      throw fsFailure(err.message, c, () => err);
    }
  };

  const withHandle = async <T>(path: string, mode: string, c: Omit<FsErrorContext, 'source'>, fn: (handle: number) => Promise<T>): Promise<T> => {
    const handle = await fileCall<number>('guest-file-open', { path, mode }, c);
    try {
      return await fn(handle);
    } finally {
      await call('guest-file-close', { handle }).catch(() => undefined);
    }
  };

  /** `stat -L` as the user: the file's type and size, or the typed reason it cannot be reached. */
  const statFile = async (path: string, user: string, c: Omit<FsErrorContext, 'source'>): Promise<number> => {
    const r = await mustExec(['stat', '-L', '-c', '%F %s', '--', path], `stat ${path}`, c, { user });
    const m = /^(.*) (\d+)\s*$/.exec(r.stdout.toString());
    if (!m) throw new VmhubError('INTERNAL', `[vmhub] [${SOURCE}] stat of ${path} in the guest gave "${r.stdout.toString().slice(0, 40)}"`, { source: SOURCE });
    if (m[1] === 'directory') throw fsError('EISDIR', { ...c, source: SOURCE })!;
    if (!/regular/.test(m[1]!)) throw fsError('ENOTREG', { ...c, source: SOURCE })!;
    return Number(m[2]);
  };

  return {
    exec,
    /**
     * Atomic (GuestChannel.putFile): the bytes go to a temporary sibling (core's putTempPath) —
     * by the user's shell in parts, or root's through the agent's file API — and PUT_COMMIT_SH
     * renames it over the path only when it holds every byte; a server killed mid-write leaves
     * the file as it was. The temporary file is removed on failure.
     */
    async putFile(path: string, data: Buffer, opts: PutFileOptions = {}): Promise<void> {
      const user = opts.user ?? desktopUser;
      const c = { op: 'write' as const, path, user };
      preflight(c);
      const tmp = putTempPath(path);
      const as = user !== 'root' ? { user } : {};
      try {
        if (user !== 'root') {
          // The user's shell opens the file: its rights decide, and a symlink resolves for it.
          for (let off = 0; off === 0 || off < data.length; off += USER_CHUNK) {
            const argv = off === 0 ? ['/bin/sh', '-c', PUT_CREATE_SH, 'sh', path, tmp] : ['/bin/sh', '-c', PUT_APPEND_SH, 'sh', tmp];
            await mustExec(argv, `writing ${path} as ${user}`, c, { user, stdin: data.subarray(off, off + USER_CHUNK), timeoutMs: Math.max(options.timeoutMs, 60_000) });
          }
        } else {
          const dir = posix.dirname(path);
          if (dir !== '/') await mustExec(['/bin/mkdir', '-p', '--', dir], `cannot create ${dir} in the guest`, { ...c, at: dir });
          await withHandle(tmp, 'w', c, async (handle) => {
            for (let off = 0; off < data.length; off += CHUNK) {
              await fileCall('guest-file-write', { handle, 'buf-b64': data.subarray(off, off + CHUNK).toString('base64') }, c);
            }
          });
        }
        const mode = opts.mode === undefined ? '' : (opts.mode & 0o7777).toString(8);
        await mustExec(['/bin/sh', '-c', PUT_COMMIT_SH, 'sh', tmp, path, mode, String(data.length)], `writing ${path} as ${user}`, c, as);
      } catch (err) {
        await exec(['/bin/rm', '-f', '--', tmp], { ...as, timeoutMs: 15_000 }).catch(() => undefined);
        throw err;
      }
    },
    async getFile(path: string, opts: GetFileOptions = {}): Promise<Buffer> {
      const max = opts.maxBytes ?? Number.MAX_SAFE_INTEGER;
      const user = desktopUser;
      const c = { op: 'read' as const, path, user, cap: max };
      preflight(c);
      // First the type and size, as the user: a FIFO would block the agent's open, a directory is no file.
      const size = await statFile(path, user, c);
      const over = (n: number): VmhubError => new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is larger than the ${max}-byte cap (${n} bytes): raise max_bytes or read it in parts with vm_exec`, { source: SOURCE, details: { size: n, cap: max } });
      if (size > max) throw over(size);
      if (user !== 'root') {
        const parts: Buffer[] = [];
        let total = 0;
        for (let i = 0; ; i++) {
          const argv = size <= USER_CHUNK && i === 0 ? ['cat', '--', path] : ['dd', `if=${path}`, `bs=${CHUNK}`, `skip=${i * (USER_CHUNK / CHUNK)}`, `count=${USER_CHUNK / CHUNK}`];
          const r = await mustExec(argv, `reading ${path} as ${user}`, c, { user, maxOutputBytes: USER_CHUNK + 1, timeoutMs: Math.max(options.timeoutMs, 60_000) });
          parts.push(r.stdout);
          total += r.stdout.length;
          if (total > max) throw over(total);
          if (argv[0] === 'cat' || r.stdout.length < USER_CHUNK) return Buffer.concat(parts);
        }
      }
      return withHandle(path, 'r', c, async (handle) => {
        const parts: Buffer[] = [];
        let total = 0;
        for (;;) {
          const r = await fileCall<{ count: number; 'buf-b64': string; eof: boolean }>('guest-file-read', { handle, count: CHUNK }, c);
          const buf = Buffer.from(r['buf-b64'], 'base64');
          total += buf.length;
          if (total > max) throw over(total);
          parts.push(buf);
          if (r.eof || buf.length === 0) return Buffer.concat(parts);
        }
      });
    },
    async close(): Promise<void> {
      closed = true;
      const c = await client?.catch(() => undefined);
      client = undefined;
      c?.close();
    },
  };
}

/**
 * The adb channel of an Android VM: the host's adb server dials the 127.0.0.1 port QEMU forwards
 * to the guest's adbd (forward_ports).
 */
async function openAdbGuestChannel(rt: QemuRuntime, machine: MachineRef, port: number): Promise<GuestChannel> {
  const { record } = await requireLive(rt, machine, 'channel');
  const host = record.forwards?.[port];
  if (!host) throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] guest_channel adb needs guest port ${port} in provider_options.forward_ports (${machine.identity} does not forward it)`, { source: SOURCE });
  return openAdbChannel({ address: { host: '127.0.0.1', port: host } });
}
