/**
 * channel(): a NEW GuestChannel through the QEMU guest agent per call (virtio-serial port
 * `org.qemu.guest_agent.0`, host side `qga.sock`). Core opens one per lease session and closes
 * it when the session ends; the provider keeps none, and destroy() need not close them: when
 * qemu exits the socket closes, calls in flight reject, and close() resolves at once.
 *
 * exec is guest-exec + guest-exec-status polling (stdin as base64 input data); a timeout or a
 * cancelled call (options.signal) kills the pid with a second guest-exec of
 * `/bin/kill -KILL <pid>`, as the agent has no kill command. Files go through
 * guest-file-open/read/write/close in 1 MiB chunks, well under the agent's ~64 MiB message limit.
 * A channel connects on first use and resyncs after every reconnect. The agent's socket serves
 * one client at a time, so a second channel of the same machine waits until the first is closed
 * (or fails after qmp_timeout_ms, saying so). close() is final: later calls reject.
 */
import { join, posix } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { VmhubError, type ExecOptions, type ExecResult, type GetFileOptions, type GuestChannel, type MachineRef, type PutFileOptions, type TemplateConfig } from '@vmhub/core';
import { templateOptions } from './options.ts';
import { QmpClient, QmpError } from './qmp-client.ts';
import { requireLive, SOURCE, type QemuRuntime } from './qemu-runtime.ts';
import { FILES } from './state-dir.ts';

const CHUNK = 1024 * 1024;
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The agent runs everything as its own user (root): a request for another user is refused, not silently run as root. */
function refuseUser(user: string | undefined): void {
  if (user !== undefined && user !== 'root') {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] the QEMU guest agent runs commands and file operations as root and cannot switch to user "${user}": omit user, or run \`su\`/\`runuser\` yourself in the argv`, { source: SOURCE });
  }
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
  if (!templateOptions(template.provider_options).guest_agent) {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] this template has no guest agent channel: set provider_options.guest_agent: true and install qemu-guest-agent in the golden`, { source: SOURCE });
  }
  const { dir, record } = await requireLive(rt, machine, 'channel');
  if (!record.guest_agent) {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `[vmhub] [${SOURCE}] ${machine.identity} was started without a guest agent socket: this template has no guest agent channel`, { source: SOURCE });
  }
  return createQgaChannel({ socketPath: join(dir, FILES.qga), label: machine.identity, timeoutMs: rt.qmpTimeoutMs });
}

export interface QgaChannelOptions {
  socketPath: string;
  label: string;
  /** Bound for connect + guest-sync and for each agent command, ms. */
  timeoutMs: number;
}

export function createQgaChannel(options: QgaChannelOptions): GuestChannel {
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
    refuseUser(opts.user);
    const timeoutMs = opts.timeoutMs ?? 30_000;
    const cap = opts.maxOutputBytes ?? 1024 * 1024;
    // The agent has no cwd parameter: a fixed shell snippet changes directory, the cwd and argv stay separate arguments.
    const full = opts.cwd ? ['/bin/sh', '-c', 'cd -- "$1" && shift && exec "$@"', 'sh', opts.cwd, ...argv] : argv;
    const args: Record<string, unknown> = { path: full[0], arg: full.slice(1), 'capture-output': true };
    // The agent replaces the whole environment when env is given: keep a PATH so bare names resolve.
    if (opts.env) args.env = Object.entries({ PATH: DEFAULT_PATH, ...opts.env }).map(([k, v]) => `${k}=${v}`);
    if (opts.stdin !== undefined) args['input-data'] = Buffer.from(opts.stdin).toString('base64');
    const signal = opts.signal;
    // Already cancelled: the command never starts.
    if (signal?.aborted) return cancelled();
    // Not raced with the signal: once the agent has started the process, its pid is needed to kill it.
    const { pid } = await call<{ pid: number }>('guest-exec', args);
    // Timeout or cancellation: guest-exec-status has no kill, so another guest-exec kills the pid.
    const kill = async (): Promise<ExecResult> => {
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

  /** A helper command putFile depends on: its failure fails the operation. */
  const mustExec = async (argv: string[], what: string): Promise<void> => {
    const r = await exec(argv, { timeoutMs: options.timeoutMs });
    if (r.exit_code !== 0) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${what}: ${r.timed_out ? 'timed out' : r.stderr.toString().trim()}`, { source: SOURCE });
  };

  const withHandle = async <T>(path: string, mode: string, fn: (handle: number) => Promise<T>): Promise<T> => {
    const handle = await call<number>('guest-file-open', { path, mode });
    try {
      return await fn(handle);
    } finally {
      await call('guest-file-close', { handle }).catch(() => undefined);
    }
  };

  return {
    exec,
    async putFile(path: string, data: Buffer, opts: PutFileOptions = {}): Promise<void> {
      refuseUser(opts.user);
      const dir = posix.dirname(path);
      if (dir !== '/') await mustExec(['/bin/mkdir', '-p', '--', dir], `cannot create ${dir} in the guest`);
      await withHandle(path, 'w', async (handle) => {
        for (let off = 0; off < data.length; off += CHUNK) {
          await call('guest-file-write', { handle, 'buf-b64': data.subarray(off, off + CHUNK).toString('base64') });
        }
      });
      if (opts.mode !== undefined) await mustExec(['/bin/chmod', (opts.mode & 0o7777).toString(8), '--', path], `cannot set mode of ${path} in the guest`);
    },
    async getFile(path: string, opts: GetFileOptions = {}): Promise<Buffer> {
      const max = opts.maxBytes ?? Number.MAX_SAFE_INTEGER;
      return withHandle(path, 'r', async (handle) => {
        const parts: Buffer[] = [];
        let total = 0;
        for (;;) {
          const r = await call<{ count: number; 'buf-b64': string; eof: boolean }>('guest-file-read', { handle, count: CHUNK });
          const buf = Buffer.from(r['buf-b64'], 'base64');
          total += buf.length;
          if (total > max) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${path} is larger than the ${max}-byte cap: raise max_bytes or read it in parts with vm_exec`, { source: SOURCE });
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
