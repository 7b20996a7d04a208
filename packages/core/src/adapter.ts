/**
 * Adapter: drives what runs inside a machine (screen, input, windows, files, exec) through the
 * GuestChannel or console handle its provider gives it. It never knows the transport.
 *
 * Shape (contract 2): an adapter instance opens one **session per lease** —
 * `adapter.open(lease) → AdapterSession` — and every capability method and verb runs on that
 * session. Whatever an adapter learns about one machine (screen size, which tools the golden has,
 * keys bound for typing, an input queue) lives on its session object, so no map keyed by lease
 * id exists anywhere. The server opens the session on the lease's first VM-bound call and
 * disposes it exactly once in every terminal state (release, expiry, reap, failure, machine lost,
 * server shutdown); core then closes the lease's channel and console itself.
 *
 * What core guarantees before a method runs, so adapters never re-check:
 * - input was validated whole against the tool's schema (no unknown fields, bounds, enums);
 * - coordinates are screen pixels inside the screen (mapped from the lease's latest screenshot,
 *   off-screen points refused, never clamped);
 * - guest paths are absolute and normalised, resolved against the channel's home, with no ".."
 *   segment and no NUL (see paths.ts);
 * - `ctx.signal` aborts when the call's deadline passes or the client cancels;
 * - the method is one the adapter declared (else CAPABILITY_UNAVAILABLE was answered);
 * - nothing runs on a disposed session (LEASE_EXPIRED is answered instead).
 */
import type { Duplex, Readable } from 'node:stream';
import type { TSchema } from '@sinclair/typebox';
import type { Capability } from './capabilities.ts';
import type { ConsoleHandle, ExecResult, GuestChannel, RawScreen } from './channel.ts';
import type { ElementNode, MachineRef, WindowInfo } from './shapes.ts';
import type { FramebufferSource } from './provider.ts';
import type { TemplateConfig } from './template.ts';

/** One lease, as `open()` sees it for the life of the session. */
export interface LeaseContext {
  lease_id: string;
  machine: MachineRef;
  /** The lease's template; per-template adapter settings are in `template.adapter_options`. */
  template: TemplateConfig;
  /**
   * The lease's GuestChannel, opened once by core on first use and closed by core when the
   * session ends: never close it yourself. Throws CAPABILITY_UNAVAILABLE if the provider has none.
   */
  channel(): Promise<GuestChannel>;
  /** The lease's console handle (opened once, closed by core). CAPABILITY_UNAVAILABLE if none. */
  console(): Promise<ConsoleHandle>;
  /**
   * A new byte stream to TCP `port` in the machine (Provider.connect), e.g. an ssh2 `sock` or an
   * RFB connection. Core destroys it when the session ends if it is still open.
   * CAPABILITY_UNAVAILABLE if the provider cannot reach guest ports.
   */
  connect(port: number): Promise<Duplex>;
  /**
   * An address on the vmhub host whose every connection is a `connect(port)` into the machine:
   * for clients that dial an address themselves (the adb server, an HTTP client). By default a
   * unix socket `{path}` in a 0700 directory of the vmhub user, so no other local user can
   * connect; `{host: '127.0.0.1', port}` only when the template sets `forward_tcp: true`. Both
   * shapes go to `net.connect` as they are. The same port asked twice gives the same address;
   * core closes the listener and its connections when the session ends. A client speaking HTTP
   * sends `Host: 127.0.0.1:<port>`, which a guest server bound to its own loopback accepts.
   */
  forward(port: number): Promise<GuestEndpoint>;
  /**
   * A per-lease secret the provider put into the machine at create (Provider.secret), e.g. the key
   * Windows-MCP was started with; undefined when there is none. Optional: absent where the context
   * was built without a provider (hand-made test contexts).
   */
  secret?(name: string): Promise<string | undefined>;
  /**
   * The machine's framebuffer as a file on the vmhub host (Provider.framebuffer), or undefined:
   * a screenshot read from it skips the guest entirely (no process, no copy through the
   * channel). Guard against tearing — the display draws into it while you read. Optional, like
   * secret(); undefined whenever the provider has none.
   */
  framebuffer?(): Promise<FramebufferSource | undefined>;
}

/**
 * Where a forward listens on the vmhub host (LeaseContext.forward): a unix socket (the default)
 * or a TCP address on 127.0.0.1 (template `forward_tcp: true`). Test `path` to tell them apart.
 */
export type GuestEndpoint = GuestSocketEndpoint | GuestTcpEndpoint;

/** A unix socket inside a 0700 directory owned by the vmhub user. */
export interface GuestSocketEndpoint {
  path: string;
  host?: never;
  port?: never;
}

/** A TCP listener on 127.0.0.1: reachable by every local user. */
export interface GuestTcpEndpoint {
  host: string;
  port: number;
  path?: never;
}

/** One call on a session: the lease plus the call's cancellation signal. */
export interface AdapterContext extends LeaseContext {
  /**
   * Aborted when the call's deadline passes or the client cancels. Pass it to every
   * `GuestChannel.exec` (ExecOptions.signal) so a cancelled call stops in the guest too.
   */
  signal: AbortSignal;
}

export type MouseButton = 'left' | 'right' | 'middle';
export type Modifier = 'ctrl' | 'shift' | 'alt' | 'super';
export interface Point { x: number; y: number }

/**
 * One method per capability (see CAPABILITY_METHOD in capabilities.ts). A session implements
 * exactly the capabilities its adapter declares; `defineAdapter` refuses a session that lacks a
 * declared method or has an undeclared one.
 */
/** How a screenshot is wanted. */
export interface ScreenshotOptions {
  /**
   * A frame of the live view's stream, which captures again within milliseconds: the adapter may
   * return a frame drawn into while it was read (the next one follows), and should take no slow
   * path to avoid that (adapter-x11: one read of the host framebuffer, no stable-read retries and
   * no fall back to `xwd` in the guest while the screen keeps changing). Agents' screenshots
   * never set it.
   */
  live?: boolean;
}

/** What vm_inspect asks of an adapter, core's defaults filled in. */
export interface InspectRequest {
  max_depth: number;
  /** `window`: the focused window's subtree; `desktop`: every application's. */
  scope: 'window' | 'desktop';
  /** Stop after this many elements. */
  max_nodes: number;
  /** Stop walking after this long and answer what was read. */
  timeout_ms: number;
}

export interface InspectResult {
  source: string;
  tree: ElementNode;
  /** The scope answered when not the one asked (no focused window found: the desktop). */
  scope?: 'window' | 'desktop';
  /** The limit that cut the tree short. */
  truncated?: 'nodes' | 'time' | 'depth';
}

export interface AdapterSession {
  /**
   * Capture the whole screen; core crops, scales and encodes. Core only reads `data` and copies
   * what it keeps (a changed_only baseline), so an adapter may reuse its buffers from one call to
   * the next, and may hand back the very frame it returned last while the screen has not changed
   * (adapter-x11 does: one read and a compare instead of a second read and a decode).
   * `options.live`: ScreenshotOptions.
   */
  screenshot?(ctx: AdapterContext, options?: ScreenshotOptions): Promise<RawScreen>;
  /**
   * The accessibility tree, bounded (InspectRequest): an adapter stops at either budget and
   * answers what it read with `truncated` naming the limit, never blocking past `timeout_ms` on an
   * application that does not answer. Bounds are screen pixels. Core caps the nodes again, adds
   * refs, and answers a walk that overruns its time by far with an empty, truncated tree.
   */
  inspect?(ctx: AdapterContext, input: InspectRequest): Promise<InspectResult>;
  listWindows?(ctx: AdapterContext): Promise<WindowInfo[]>;
  focus?(ctx: AdapterContext, input: { window: string }): Promise<WindowInfo>;
  close?(ctx: AdapterContext, input: { window: string }): Promise<{ window_id: string }>;
  launch?(ctx: AdapterContext, input: { app: string; args: string[]; wait_seconds: number }): Promise<{ pid?: number; window?: WindowInfo }>;
  /** Screen pixels, inside the screen (core checked). */
  click?(ctx: AdapterContext, input: Point & { button: MouseButton; count: number; modifiers: Modifier[] }): Promise<void>;
  type?(ctx: AdapterContext, input: { text: string }): Promise<void>;
  key?(ctx: AdapterContext, input: { keys: string }): Promise<void>;
  /**
   * vm_key {action: "down" | "up"} (capability `key_hold`): press the keys of `keys` (one chord,
   * "+"-joined, or several space-separated) and leave them down, or release them. The session
   * tracks what it holds and releases it in dispose() and releaseHeld(); "up" of a key not held
   * sends its release anyway (harmless) so an agent can always recover.
   */
  keyHold?(ctx: AdapterContext, input: { keys: string; action: 'down' | 'up' }): Promise<void>;
  paste?(ctx: AdapterContext, input: { text: string }): Promise<void>;
  /** vm_get_clipboard (capability `get_clipboard`): the guest clipboard as text ('' when empty). */
  getClipboard?(ctx: AdapterContext): Promise<{ text: string }>;
  drag?(ctx: AdapterContext, input: { from: Point; to: Point; button: MouseButton }): Promise<void>;
  scroll?(ctx: AdapterContext, input: Point & { direction: 'up' | 'down' | 'left' | 'right'; amount: number }): Promise<void>;
  /** `path` is absolute and normalised (core resolved it). */
  putFile?(ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void>;
  getFile?(ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer>;
  /** Unpack a host-made clone (tar of the working tree with .git) at dest (absolute). */
  cloneRepo?(ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void>;
  /**
   * Install a git credential for the repository unpacked at `repo` (absolute), so git in the guest
   * authenticates to `url` (scheme, host, port and the repository's path) as `username` with
   * `secret`: readable by the session's user alone (0600 in its home), scoped to that URL (the
   * repository's own config names a helper for exactly that URL, the secret stays out of it), never
   * in argv or environment. vm_clone_repo {push: true} calls it after cloneRepo; without it such a
   * call is CAPABILITY_UNAVAILABLE before anything is minted. On failure nothing of it may remain.
   * Not a capability of its own: part of clone_repo, optional. The adapter kit's
   * `installGitCredential` does it for POSIX guests with git.
   */
  installGitCredential?(ctx: AdapterContext, input: { repo: string; url: string; username: string; secret: string }): Promise<void>;
  /** `cwd`, when given, is absolute (core resolved it). */
  exec?(ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult>;
  /**
   * What `vm_exec {shell}` means on this machine: the argv that runs `command` (the agent's string,
   * unchanged) in the machine's shell; core hands it to `exec()` like any argv. Optional, only with
   * the `exec` capability, synchronous and without I/O. Absent: `['/bin/sh', '-c', command]`
   * (posixShellArgv), right for Linux, BSDs and macOS. Windows answers PowerShell, Android
   * `/system/bin/sh` (a device has no /bin/sh). Say in the adapter's docs which shell it is.
   */
  shellArgv?(command: string): string[];
  /**
   * The machine was restored to a snapshot, or this lease is a fork started from one: whatever
   * the session holds about the guest's running state is stale — connections into the guest (an
   * X11/XTEST connection, a framebuffer mapping, an MCP client), cached facts, helper processes.
   * Drop them; the next call reconnects. Called by core before the first call after a restore.
   * Optional; must not throw.
   */
  restored?(ctx: AdapterContext): Promise<void>;
  /**
   * Release every key (and pointer button) this session, or anything else, holds down on the
   * machine: core calls it when a person takes over in the live view, so keys an agent held with
   * vm_key {action: "down"} never reach the person's typing. Optional (adapters without
   * key_hold need none); best effort, must not throw.
   */
  releaseHeld?(ctx: AdapterContext): Promise<void>;
  /** Screen size in pixels, for bounds checks before any screenshot was taken. Optional. */
  screenSize?(ctx: AdapterContext): Promise<{ width: number; height: number }>;
  /**
   * What this machine cannot do right now although declared (e.g. AT-SPI missing from the
   * golden), with reasons. Used by vm_capabilities. Optional; never throws.
   */
  probe?(ctx: AdapterContext): Promise<Partial<Record<Capability, string>>>;
  /**
   * End of the lease: drop what the session holds (timers, helper processes it started).
   * Called exactly once, in every terminal state; the channel and console are closed by core
   * afterwards. Must not throw (a throw is logged and ignored).
   */
  dispose?(): Promise<void> | void;
}

/** A verb served by vm_dispatch: its args are validated against `args` before `run`. */
export interface VerbSpec<S extends AdapterSession = AdapterSession> {
  description: string;
  args: TSchema;
  /** Runs on the lease's session (the same object `open()` returned). */
  run(ctx: AdapterContext, args: Record<string, unknown>, session: S): Promise<unknown>;
}

/**
 * A session as core hands it out (made by `Adapter.open`): the adapter's methods wrapped so
 * anything thrown is a VmhubError tagged with the adapter, `dispatch` routed to the declared
 * verbs, and `dispose()` idempotent. After dispose every method answers LEASE_EXPIRED.
 */
export interface OpenSession extends Omit<AdapterSession, 'dispose'> {
  readonly lease_id: string;
  dispatch?(ctx: AdapterContext, input: { verb: string; args: Record<string, unknown> }): Promise<unknown>;
  /** Dispose once; later calls resolve at once. */
  dispose(): Promise<void>;
  readonly disposed: boolean;
}

/** What an adapter declares: the same on its plugin (AdapterPlugin) and on every instance of it. */
export interface AdapterDeclaration {
  readonly kind: 'adapter';
  readonly id: string;
  readonly version: string;
  readonly contractVersion: number;
  readonly capabilities: readonly Capability[];
  readonly verbs: readonly { verb: string; description: string }[];
}

/** An adapter instance (from `plugin.create(options)`): what it declares, and `open()`. */
export interface Adapter extends AdapterDeclaration {
  /** Open this lease's session. No I/O is required here; connections open lazily. */
  open(lease: LeaseContext): Promise<OpenSession>;
}
