/** The simulated cluster's objects. Everything is in memory and inspectable by tests. */

export interface SimNodeConfig {
  name: string;
  /** Default true. An offline node answers proxied calls with 595. */
  online?: boolean;
  /** Total memory in bytes. Default 64 GiB. */
  memoryTotal?: number;
  /** Memory used by the host itself, in bytes. Default 4 GiB. Running VMs add their `memory`. */
  memoryBaseUsed?: number;
  /** Default 16. */
  cpus?: number;
}

export interface SimNode {
  name: string;
  online: boolean;
  memoryTotal: number;
  memoryBaseUsed: number;
  cpus: number;
}

export interface SimStorageConfig {
  id: string;
  /** PVE storage type. Default `lvmthin`. */
  type?: string;
  /** Default ['images', 'rootdir']. */
  content?: string[];
  /** Default false. Shared storage lets clones target other nodes. */
  shared?: boolean;
  /** Nodes the storage is on; default all. */
  nodes?: string[];
  /** Whether linked clones work on it (lvmthin, zfs, rbd, qcow2 dirs). Default true for lvmthin/zfspool/rbd. */
  linkedClone?: boolean;
  /** Default 500 GiB. */
  total?: number;
}

export interface SimStorage {
  id: string;
  type: string;
  content: string[];
  shared: boolean;
  nodes: string[] | undefined;
  linkedClone: boolean;
  total: number;
}

export interface GuestIpAddress {
  'ip-address': string;
  'ip-address-type': 'ipv4' | 'ipv6';
  prefix: number;
}

export interface GuestInterface {
  name: string;
  'hardware-address'?: string;
  'ip-addresses': GuestIpAddress[];
}

export interface ExecRequest {
  vmid: number;
  argv: string[];
  /** stdin as given in `input-data` (already the raw text). */
  input: string | undefined;
  /** The VM's in-memory files (the same map file-read/file-write use). */
  files: Map<string, Buffer>;
  /** Owners of files and directories (absent = root), directories made, root-only paths (guest-fs.ts). */
  owners?: Map<string, string>;
  dirs?: Set<string>;
  rootOnly?: string[];
  /** Permission bits `chmod` set (absent = 644 for a file, 755 for a directory). */
  modes?: Map<string, number>;
}

export interface ExecResult {
  exitcode?: number;
  signal?: number;
  stdout?: string | Buffer;
  stderr?: string | Buffer;
  /** How long the process "runs" before exec-status reports it exited. Default 0. */
  durationMs?: number;
}

export type ExecHandler = (req: ExecRequest) => ExecResult | Promise<ExecResult>;

/** Guest behaviour defaults for every VM (templates, clones); per VM overridable with `state.setGuest`. */
export interface GuestOptions {
  /** Delay between the VM's start completing and the agent answering. Default 500 ms. */
  agentDelayMs?: number;
  /** Interfaces reported by network-get-interfaces (besides `lo`). Default: eth0 with 10.10.<hi>.<lo>/24 derived from the VMID. */
  interfaces?: GuestInterface[] | ((vm: { vmid: number; name: string | undefined; tags: string[] }) => GuestInterface[]);
  /** What agent exec does. Default: see README ("default exec handler"). */
  exec?: ExecHandler;
  /**
   * Called when a VM finishes starting, with the cloud-init values it boots with (what cloud-init
   * would apply: `ciuser`, decoded `sshkeys`, `ipconfig0`, ...). A test uses it to configure the
   * loopback sshd that plays the guest. While a returned promise is pending the agent is "not running".
   */
  onBoot?: (boot: GuestBoot) => void | Promise<void>;
  /**
   * Paths only root may touch in the default guest: a directory is unreachable below it for other
   * users (mode 700), a file unreadable and unwritable (mode 600). Default `['/root', '/etc/shadow']`.
   */
  rootOnly?: string[];
}

export interface GuestBoot {
  vmid: number;
  node: string;
  name: string | undefined;
  tags: string[];
  /** Cloud-init keys from the config; `sshkeys` URL-decoded to the OpenSSH text. */
  cloudInit: Record<string, string>;
}

export interface GuestState {
  agentDelayMs: number;
  agentReadyAt: number | undefined;
  /** True while an `onBoot` hook's promise is pending. */
  booting: boolean;
  interfaces: GuestInterface[] | undefined;
  exec: ExecHandler | undefined;
  files: Map<string, Buffer>;
  /** Owner of each file or directory (absent = root): what the default guest's users wrote. */
  owners: Map<string, string>;
  /** Directories made in the guest (parents of files count too). */
  dirs: Set<string>;
  /** Permission bits `chmod` (or `mkdir -m`) set (absent = 644 for a file, 755 for a directory). */
  modes: Map<string, number>;
  execs: Map<number, ExecState>;
  nextPid: number;
}

export interface ExecState {
  pid: number;
  done: boolean;
  endsAt: number;
  result: ExecResult | undefined;
  error: string | undefined;
  killed?: boolean;
}

export type ConfigValue = string | number;

export interface SimVm {
  vmid: number;
  node: string;
  config: Record<string, ConfigValue>;
  /** Changes waiting for the next cold start (running VM, not hot-pluggable). */
  pending: Record<string, ConfigValue>;
  status: 'running' | 'stopped';
  /** Suspended to RAM (qmpstatus `paused`): the agent does not answer. */
  paused: boolean;
  startedAt: number | undefined;
  pid: number | undefined;
  pool: string | undefined;
  createdAt: number;
  guest: GuestState;
  /** Cloud-init values as they were when the VM last started (what the guest "saw"). */
  cloudInitAtStart: Record<string, ConfigValue> | undefined;
  /** The VM's snapshots by name (the config file's `[snapname]` sections). */
  snapshots: Map<string, SimSnapshot>;
  /** The snapshot the current state descends from (the config's `parent`), kept out of `config`. */
  snapParent: string | undefined;
}

/**
 * One snapshot: the config as it was (a `vmstate` key names the RAM state volume when it has
 * one), the guest's disk (its files), and whether the VM was running.
 */
export interface SimSnapshot {
  name: string;
  description: string;
  /** Epoch seconds. */
  snaptime: number;
  parent: string | undefined;
  /** RAM saved (`vmstate: 1` on a running VM): a rollback resumes the VM where it was. */
  vmstate: boolean;
  config: Record<string, ConfigValue>;
  disk: { files: Map<string, Buffer>; owners: Map<string, string>; dirs: Set<string>; modes: Map<string, number> };
  /** With RAM: the cloud-init values the running guest had seen (they come back with it). */
  cloudInitAtStart: Record<string, ConfigValue> | undefined;
}

export interface SimVmSeed {
  vmid: number;
  /** Default: the first node. */
  node?: string;
  name?: string;
  /** Default false. */
  template?: boolean;
  tags?: string;
  description?: string;
  /** Default true: `agent: 1`. */
  agent?: boolean;
  /** Default 'stopped'. */
  status?: 'running' | 'stopped';
  /** Storage for the disk. Default: the first storage with `images` content. */
  storage?: string;
  pool?: string;
  /** Extra raw config keys (`cores`, `memory`, `net0`, ...), as PVE stores them. */
  config?: Record<string, ConfigValue>;
}

export interface SimPoolConfig {
  poolid: string;
  comment?: string;
}

export interface AclEntry {
  path: string;
  /** Built-in role names (Administrator, PVEVMAdmin, PVEVMUser, PVEAuditor, PVEDatastoreUser, PVESDNUser, ...). */
  roles?: string[];
  /** Privilege names granted directly (a custom role). */
  privs?: string[];
  /** Default true. */
  propagate?: boolean;
}

export interface SimTokenConfig {
  /** `user@realm!tokenname`. */
  tokenId: string;
  secret: string;
  /** The token's effective ACL (what PVE computes from the token's and its user's ACLs). */
  acl: AclEntry[];
  /** Epoch seconds; 0/undefined = never. */
  expire?: number;
  /** Default true. A disabled user or token fails with 401 like a wrong secret. */
  enabled?: boolean;
}

export interface SimTask {
  upid: string;
  node: string;
  type: string;
  id: string;
  /** The UPID's user field: `user@realm` or `user@realm!token`. */
  user: string;
  pid: number;
  pstart: number;
  starttime: number;
  status: 'running' | 'stopped';
  exitstatus: string | undefined;
  endtime: number | undefined;
  endsAt: number;
  log: string[];
  finish: (() => void) | undefined;
  onFail: ((msg: string) => void) | undefined;
  /** Exit status forced by `faults.failTasks`. */
  injected?: string | undefined;
}

export interface DestroyRecord {
  vmid: number;
  node: string;
  tags: string[];
  purge: boolean;
  destroyUnreferencedDisks: boolean;
  at: number;
}
