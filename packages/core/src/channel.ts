/**
 * GuestChannel: how an adapter reaches inside a machine, whatever the transport (docker exec +
 * archive API, SSH, the QEMU guest agent, adb). Providers make channels; adapters use them.
 *
 * Rules every implementation keeps:
 * - argv, never a shell string: `exec(['xdotool', 'type', '--', text])`. Agent input is never
 *   spliced into a command line.
 * - Bounded: every exec has a timeout and output caps; files have size caps. Exceeding a file cap
 *   is an INVALID_REQUEST naming the cap; a missing file is NOT_FOUND.
 * - Persistent or pooled per lease: opening a channel is the provider's cost, not each action's.
 */
import type { Duplex, Readable } from 'node:stream';

export interface ExecOptions {
  /** Bytes or UTF-8 text written to the process's stdin, then closed. */
  stdin?: Buffer | string;
  /** Working directory in the guest. Default: the user's home. */
  cwd?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Guest user. Default: the channel's desktop user. */
  user?: string;
  /** Kill the process after this long; `timed_out` is then true. Default 30 000. */
  timeoutMs?: number;
  /** Cap for each of stdout and stderr; the rest is dropped and `truncated` set. Default 1 MiB. */
  maxOutputBytes?: number;
  /**
   * Cancels the command: when it aborts (the agent cancelled the tool call, or the call's deadline
   * passed — adapters pass `AdapterContext.signal`), the process is killed exactly as on timeout
   * and exec resolves promptly with `exit_code: null` and `timed_out: true`. Already aborted: the
   * command does not start. Channels must honour it: a cancelled call must not keep running in
   * the guest.
   */
  signal?: AbortSignal;
}

export interface ExecResult {
  /** null when the process was killed (timeout) or its status is unknown. */
  exit_code: number | null;
  stdout: Buffer;
  stderr: Buffer;
  timed_out: boolean;
  truncated: boolean;
}

export interface PutFileOptions {
  /** Octal mode, e.g. 0o644. */
  mode?: number;
  /** Owner user; default the channel's desktop user. */
  user?: string;
}

export interface GetFileOptions {
  /** Refuse files larger than this (INVALID_REQUEST). */
  maxBytes?: number;
}

export interface GuestChannel {
  /** Run argv[0] with arguments argv[1..] (no shell). */
  exec(argv: string[], options?: ExecOptions): Promise<ExecResult>;
  /**
   * Write a file (parent directories created), atomically: the bytes go to a temporary name in
   * the same directory (`.<name>.vmhub-<random>`, guest-put.ts), which is renamed over `path`
   * only once every byte arrived — a reader, or a server killed mid-write, never finds half a
   * file at `path`, only the old content or the new. The temporary file is removed on failure
   * (a writer killed outright may leave it). A symlink at `path` is written through (its target
   * is replaced); an existing file's permission bits are kept unless `mode` is given.
   */
  putFile(path: string, data: Buffer, options?: PutFileOptions): Promise<void>;
  /** Read a whole file. */
  getFile(path: string, options?: GetFileOptions): Promise<Buffer>;
  /**
   * Unpack a tar stream into `dir` (created if missing). Optional: adapters fall back to
   * `exec(['tar', '-x', ...], {stdin})` when a channel lacks it.
   */
  putArchive?(dir: string, tar: Readable, options?: { user?: string }): Promise<void>;
  /** The guest's home directory of the desktop user, for relative paths. */
  readonly home?: string;
  /** Release connections. Idempotent. */
  close(): Promise<void>;
}

/** A raw frame captured from a machine, before core shapes it for the client. */
export interface RawScreen {
  /** Encoded image (png, jpeg, ppm) or raw pixels (rgba/rgb with width and height). */
  data: Buffer;
  format: 'png' | 'jpeg' | 'ppm' | 'rgba' | 'rgb' | 'webp';
  /** Pixel size of `data`: the screen (or region) size. */
  width: number;
  height: number;
}

/**
 * Hypervisor-level access to a machine's screen and input devices (QMP for QEMU). Providers that
 * can offer it return one from `console()`; console-level adapters drive it.
 */
export interface ConsoleHandle {
  readonly kind: string;
  /** Send a protocol command (e.g. a QMP command) and return its result. */
  execute(command: string, args?: Record<string, unknown>): Promise<unknown>;
  /** Capture the current frame. */
  screendump(): Promise<RawScreen>;
  /**
   * A new RFB (VNC) byte stream to the hypervisor's display server for this machine, with the
   * password it expects (VNC auth), where the hypervisor has one (QEMU `-vnc`, Proxmox's VNC
   * proxy, Lume/Tart). It works before any OS is up and needs nothing in the guest. The caller
   * owns and closes the stream.
   */
  openVnc?(): Promise<{ socket: Duplex; password?: string }>;
  close(): Promise<void>;
}
