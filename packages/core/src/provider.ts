/**
 * Provider: makes and destroys machines. Identity rules (docs/architecture.md §identity):
 * every machine carries `vmhub-<instance>-<lease uuid>` in the provider's own metadata (Docker
 * label + name, Proxmox tag, QEMU state record); `destroy` re-reads the machine and refuses to
 * touch one whose identity does not match. An id alone is never trusted.
 */
import type { Duplex } from 'node:stream';
import type { ConsoleHandle, GuestChannel } from './channel.ts';
import type { MachineRef, Stage } from './shapes.ts';
import type { TemplateConfig } from './template.ts';

export interface ProviderContext {
  /** This vmhub instance's identity prefix (`vmhub-<instance>-`). */
  identityPrefix: string;
  /** Structured log sink (stderr in the server; never stdout, which is the MCP transport). */
  log: (level: 'debug' | 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>) => void;
  /**
   * This vmhub instance's state directory (beside its SQLite store; the default state directory
   * for PostgreSQL): the server, the reaper and `vmhub-server leases` give their providers the
   * same one, so a file a provider keeps per lease under `<stateDir>/provider-<id>/` (its SSH
   * keys) is found by whichever process tears the lease down. Undefined (an in-memory store, an
   * embedder that gives none): keep such state in memory.
   */
  stateDir?: string;
}

export interface ProviderStatus {
  ok: boolean;
  reason?: string;
  /**
   * false: nobody configured this provider (e.g. Proxmox without PVE_HOST). vm_health then lists
   * it as not configured instead of degraded. Omit when configured.
   */
  configured?: boolean;
  nodes?: { id: string; status: string; detail?: string }[];
  details?: Record<string, unknown>;
}

export interface CreateRequest {
  lease_id: string;
  identity: string;
  template: TemplateConfig;
  signal: AbortSignal;
  /**
   * Fork: start the machine from this snapshot (Provider.snapshot made it, of a machine of the
   * same template) instead of the golden. The new machine carries `identity` (never the
   * snapshot's or its source's) and must not share the source's randomness: the provider gives it
   * a new RNG state (QEMU vmgenid; a container's new hostname and machine-id). Only asked of a
   * provider whose snapshotSupport() for the template is not a string.
   */
  from_snapshot?: SnapshotRef;
  /**
   * Attach this workspace (made on first use, kept after the machine) at `workspace.path`. Only
   * asked of a provider whose workspaceSupport() for the template is not a string.
   */
  workspace?: WorkspaceRef;
}

/**
 * A workspace: a named volume that outlives every lease it is attached to, one at a time. It
 * carries its identity, `vmhub-<instance>-ws-<workspace id>`, in the provider's own metadata (a
 * Docker volume's name and labels, a QEMU disk's record, a Proxmox disk's name), so sweeps
 * recognise it and leave it; only deleteWorkspace (a person's act) removes it.
 */
export interface WorkspaceRef {
  identity: string;
  /** The principal's name for it. */
  name: string;
  /** The principal that owns it (recorded with it, for an operator reading the engine). */
  principal: string;
  /** Absolute guest path it is mounted at. */
  path: string;
}

/**
 * A snapshot as the store keeps it (Provider.snapshot's answer). Like a machine it carries its
 * identity, `vmhub-<instance>-snap-<snapshot id>`, in the provider's own metadata (a QEMU snapshot
 * directory's record, a Docker image label, a Proxmox snapshot description), and it is deleted
 * only after that identity is read back from it: an id alone is never trusted.
 */
export interface SnapshotRef {
  identity: string;
  /** The provider's handle: a directory, an image id, `<vmid>/<snapname>`. */
  external_id: string;
  node?: string;
  /** Provider-private, JSON-safe; no secrets. */
  details?: Record<string, unknown>;
}

export interface SnapshotResult extends SnapshotRef {
  /** true: memory and disk (running processes come back); false: the disk or filesystem only. */
  memory: boolean;
  /** Bytes this snapshot added on the host (not a full copy of what it shares with its base). */
  size_bytes: number;
}

/** A snapshot a provider holds that carries this instance's prefix (for the reaper's sweep). */
export interface OwnedSnapshot extends SnapshotRef {
  created_at?: number;
}

export interface ReadyRequest {
  signal: AbortSignal;
  /** Report a readiness stage as it progresses (shown in vm_lease_status). */
  stage: (name: string, status: Stage['status'], detail?: string) => void;
  template: TemplateConfig;
}

export type DestroyOutcome = 'destroyed' | 'already_gone' | 'identity_mismatch';

/** What Provider.restart is asked: reboot the guest in place (core waits with ready() after). */
export interface RestartRequest {
  template: TemplateConfig;
  /** true: reset at once (power cycle, SIGKILL); false: ask the guest to reboot, and reset it when it has not within the provider's timeout. */
  hard: boolean;
  signal: AbortSignal;
  /** Report a stage (`reboot`, with a detail saying how it went), shown in vm_lease_status like readiness. */
  stage: ReadyRequest['stage'];
}

/**
 * What a machine uses now (Provider.stats): each field only where the provider knows it — a field
 * it cannot measure is absent, never 0.
 */
export interface MachineStats {
  /** CPU used over a short sample, in percent of one host CPU (200: two cores busy). */
  cpu_percent?: number;
  /** Memory in use: a container's (cgroup usage less page cache), a VM process's resident set, a hypervisor's figure. */
  memory_bytes?: number;
  /** The most memory the machine may use (a container's limit, a VM's RAM). */
  memory_limit_bytes?: number;
  /** Bytes the machine's own writable disk holds on the host (a container's writable layer, a qcow2 overlay's allocation). */
  disk_bytes?: number;
  /** Seconds since the guest last booted (or since the container last started). */
  uptime_seconds?: number;
}

/** The end of a machine's own log (Provider.logs): its serial console, or a container's output. */
export interface MachineLog {
  /** What the log is, for the agent: e.g. `serial console (ttyS0)`, `container output (stdout+stderr)`. */
  source: string;
  /** The last lines, oldest first, UTF-8 (invalid bytes replaced). */
  lines: string[];
  /** More came before these lines (past `tail` or `max_bytes`). */
  truncated: boolean;
}

/** What `state()` found: running, present but stopped (or paused), or gone. */
export type MachineState = 'running' | 'stopped' | 'gone';

export interface OwnedMachine extends MachineRef {
  /** Milliseconds since epoch when the machine was created, if the provider knows. */
  created_at?: number;
}

export interface ProviderMethods {
  /** Is the backend reachable, with which nodes; never throws. */
  status(): Promise<ProviderStatus>;
  /** Can this template be created now (image present, privileges)? Never throws. */
  availability(template: TemplateConfig): Promise<{ availability: 'available' | 'unavailable' | 'stub'; reason?: string }>;
  /** Create and start a machine for a lease. Idempotent per identity where the backend allows. */
  create(request: CreateRequest): Promise<MachineRef>;
  /** Wait until the machine is ready to be driven; throws BOOT_TIMEOUT or PROVISION_FAILED. */
  ready(machine: MachineRef, request: ReadyRequest): Promise<void>;
  /** Destroy after verifying the identity the machine carries. */
  destroy(machine: MachineRef): Promise<DestroyOutcome>;
  /** Machines carrying this instance's identity prefix (for the reaper's orphan sweep). */
  list(): Promise<OwnedMachine[]>;
  /**
   * Is this machine still there and running? Asked when a call on a ready lease fails and by
   * vm_lease_status, so a machine removed or stopped behind vmhub's back ends its lease with
   * MACHINE_LOST instead of answering retryable errors forever. Re-read by identity like
   * destroy: a machine carrying another identity is 'gone'. Never throws for a missing machine.
   * Optional: without it, core treats a machine absent from list() as gone.
   */
  state?(machine: MachineRef): Promise<MachineState>;
  /**
   * Open a new channel into a ready machine. Core calls it once per lease session and closes
   * the channel when the session ends: providers do not pool or cache channels themselves.
   */
  channel?(machine: MachineRef, template: TemplateConfig): Promise<GuestChannel>;
  /**
   * Open a byte stream to TCP `port` inside the machine (its loopback, or its address on the
   * provider's network): how an adapter reaches a service in the guest — adbd, an MCP server,
   * Screen Sharing, sshd — whatever the network. Docker tunnels through an exec (containers keep
   * networking off), QEMU through a user-mode forward, Proxmox to the VM's address. A new stream
   * per call; core closes what it opened when the lease session ends. A refused or unreachable
   * port rejects with CAPABILITY_UNAVAILABLE (retryable: true) naming the port; aborting `signal`
   * before it opens rejects too.
   */
  connect?(machine: MachineRef, port: number, options: { template: TemplateConfig; signal?: AbortSignal }): Promise<Duplex>;
  /**
   * A secret the provider made for this machine at create and put into the guest (the template's
   * provider options name them: e.g. the auth key a guest service starts with, so no key is baked
   * into a golden and each lease has its own). Read back from the machine itself, never from the
   * store; undefined when the machine has no such secret. Adapters reach it as `lease.secret(name)`.
   */
  secret?(machine: MachineRef, name: string, options: { template: TemplateConfig }): Promise<string | undefined>;
  /**
   * Where the machine's display memory can be read on THIS host without going through the guest:
   * a file the display server keeps its framebuffer in (Xvfb `-fbdir`, an XWD image) on a tmpfs
   * the provider shares with the machine. Undefined when there is none (a remote engine, a golden
   * whose session does not write one, the feature off): adapters then capture through the guest.
   * The file is read while the display draws into it, so a reader must guard against tearing
   * (read until two reads agree). Adapters reach it as `lease.framebuffer()`.
   */
  framebuffer?(machine: MachineRef, options: { template: TemplateConfig }): Promise<FramebufferSource | undefined>;
  /**
   * How a person reaches the machine's sshd as the lease's user (`vmhub-server leases ssh`,
   * `vm_lease_status` access.ssh): the per-lease key pair the provider made at create (public half
   * installed for `user` in the guest, never in a golden), and the guest port sshd listens on,
   * reached through connect(). The private key is a secret: never logged, never in results or the
   * store's plain columns; the provider destroys it with the machine. Undefined when this machine
   * has no per-lease key (its template or golden has no sshd).
   */
  sshAccess?(machine: MachineRef, options: { template: TemplateConfig }): Promise<SshAccess | undefined>;
  /**
   * Pin the guest's SSH host key (SHA-256, base64) at the lease's first connection: the first pin
   * wins, and later connections must present the same key (sshAccess returns it as `hostKey`).
   */
  pinSshHostKey?(machine: MachineRef, fingerprint: string): Promise<void>;
  /**
   * Whether machines of this template can be snapshot, restored and forked, and whether memory
   * comes back (`{memory: true}`) or only the disk/filesystem (`{memory: false}`); a string is the
   * reason they cannot (vm_capabilities shows it). Synchronous, no I/O: from the template and what
   * the provider probed at start. Absent: no snapshots.
   */
  snapshotSupport?(template: TemplateConfig): { memory: boolean } | string;
  /**
   * Snapshot a ready machine. The snapshot carries `request.identity` and outlives the machine:
   * destroying the machine must leave it (and what forks share with it) in place. The machine
   * keeps running (a short pause is allowed). Throws CAPABILITY_UNAVAILABLE when it cannot.
   */
  snapshot?(machine: MachineRef, request: { identity: string; template: TemplateConfig; signal: AbortSignal }): Promise<SnapshotResult>;
  /**
   * Put the machine back to the snapshot (made of this machine or another of the same
   * template): same MachineRef afterwards (or the one returned, when the handle changed), same
   * identity. Channels and consoles opened before are stale: core ends the lease's adapter
   * session's connections (AdapterSession.restored) and opens new ones.
   */
  restore?(machine: MachineRef, snapshot: SnapshotRef, options: { template: TemplateConfig; signal: AbortSignal }): Promise<MachineRef | void>;
  /** Delete a snapshot after reading its identity back; a mismatch is left alone (`identity_mismatch`). */
  deleteSnapshot?(snapshot: SnapshotRef): Promise<DestroyOutcome>;
  /** Snapshots carrying this instance's identity prefix (the reaper's orphan sweep). */
  listSnapshots?(): Promise<OwnedSnapshot[]>;
  /**
   * Whether machines of this template can be restarted in place (Provider.restart), and whether
   * the guest is asked first (`{graceful: true}`: a guest agent, ACPI, SIGTERM to the container's
   * init) or only reset (`{graceful: false}`); a string is the reason they cannot (vm_capabilities
   * shows it). Synchronous, no I/O. Absent: no restart.
   */
  restartSupport?(template: TemplateConfig): { graceful: boolean } | string;
  /**
   * Reboot a machine in place, keeping its disk (a container's filesystem, a VM's overlay) and
   * its identity: graceful unless `hard`, then a reset after the provider's timeout. Returns once
   * the guest was reset (not once it is ready: core then calls ready() again, and a provider whose
   * ready() skips a probe for a resumed machine must wait for it after a reboot). Every process
   * of the guest is gone afterwards; channels and consoles opened before are stale (core ends the
   * lease's session first). Same MachineRef afterwards, or the one returned when the handle changed.
   */
  restart?(machine: MachineRef, request: RestartRequest): Promise<MachineRef | void>;
  /** What the machine uses now (MachineStats; unknown fields absent). May take a short sample (≤ 2 s). */
  stats?(machine: MachineRef, options: { template: TemplateConfig; signal: AbortSignal }): Promise<MachineStats>;
  /**
   * The end of the machine's own log: at most `tail` lines and `max_bytes` bytes, read from the
   * end (a large log is never read whole). Core scrubs credentials from it before an agent sees it.
   * Throws CAPABILITY_UNAVAILABLE with the reason where a template's machines keep none.
   */
  logs?(machine: MachineRef, options: { template: TemplateConfig; tail: number; max_bytes: number; signal: AbortSignal }): Promise<MachineLog>;
  /**
   * Whether leases of this template can take a workspace, and the guest path it is mounted at
   * by default (the guest user's home); a string is the reason they cannot. Synchronous, no I/O.
   * Absent: no workspaces.
   */
  workspaceSupport?(template: TemplateConfig): { path: string } | string;
  /** Delete a workspace (no lease holds it) after reading its identity back; a mismatch is left alone. */
  deleteWorkspace?(workspace: WorkspaceRef): Promise<DestroyOutcome>;
  /** Bytes the workspace holds on the host now; undefined when it does not exist (yet). */
  workspaceBytes?(workspace: WorkspaceRef): Promise<number | undefined>;
  /** Open the hypervisor-level console, where the provider has one (once per session, like channel). */
  console?(machine: MachineRef): Promise<ConsoleHandle>;
  /** Release connections and timers. */
  close?(): Promise<void>;
}

/** A lease's way into its machine's sshd (Provider.sshAccess). */
export interface SshAccess {
  /** The guest user the per-lease public key is installed for. */
  user: string;
  /** The per-lease private key, OpenSSH PEM. Secret. */
  privateKey: string;
  /** The guest TCP port sshd listens on (opened with Provider.connect). */
  port: number;
  /** SHA-256 (base64) of the host key pinned at the first connection; absent before it. */
  hostKey?: string;
}

/** A framebuffer readable on the vmhub host (Provider.framebuffer). */
export interface FramebufferSource {
  /** `xwd`: the file is an X Window Dump (header, colormap, then ZPixmap rows), as Xvfb -fbdir keeps it. */
  format: 'xwd';
  /** Absolute path on the vmhub host. */
  path: string;
  /**
   * The guest X server's unix socket, reachable from the vmhub host, when the provider shares it
   * (it needs no authentication from this host user): adapters may send input in process through
   * it (XTEST) instead of a guest command per action.
   */
  x11_socket?: string;
}

export interface Provider extends ProviderMethods {
  readonly kind: 'provider';
  readonly id: string;
  readonly version: string;
  readonly contractVersion: number;
}

/** One golden image a provider can build, as `vmhub-server golden status` shows it. */
export interface GoldenState {
  name: string;
  /** Built and current (its recipe has not changed since). */
  built: boolean;
  /** Where it is: an image tag, a directory, a template id. */
  ref: string;
  /** Why it is not built or not current, when it is not. */
  detail?: string;
}

export interface GoldenBuildOptions {
  /** Progress lines (stderr in the CLI). */
  progress?: (line: string) => void;
  /** Rebuild even when up to date. */
  force?: boolean;
  signal?: AbortSignal;
}

/**
 * Golden images a provider builds itself (Docker images from a manifest, a QEMU kernel +
 * initramfs). `vmhub-server golden …` reaches them through this, naming no provider package.
 * Builds are content-addressed: an up-to-date golden is not rebuilt unless `force`.
 */
export interface GoldenImages {
  /** The golden names this provider can build. */
  readonly names: readonly string[];
  status(name: string): Promise<GoldenState>;
  build(name: string, options?: GoldenBuildOptions): Promise<GoldenState & { rebuilt: boolean }>;
}
