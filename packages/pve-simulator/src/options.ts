/** Options of `startPveSimulator`; every field is optional and documented with its default. */
import type { PveMode } from './schema-tree.ts';
import type { GuestOptions, SimNodeConfig, SimPoolConfig, SimStorageConfig, SimTokenConfig, SimVmSeed } from './model.ts';

export interface SimTiming {
  /** Linked clone task duration (the new VM carries `lock: clone` meanwhile). Default 300. */
  cloneMs: number;
  /** Full clone task duration. Default 600. */
  fullCloneMs: number;
  /** qmstart duration. Default 150. */
  startMs: number;
  /** qmstop duration. Default 100. */
  stopMs: number;
  /** qmshutdown / qmreboot duration. Default 200. */
  shutdownMs: number;
  /** qmdestroy duration (the VMID stays taken until it ends). Default 150. */
  destroyMs: number;
  /** Async config (POST .../config) duration. Default 50. */
  configMs: number;
  /** qmtemplate duration. Default 100. */
  templateMs: number;
  /** qmsnapshot duration (lock `snapshot` meanwhile). Default 200. */
  snapshotMs: number;
  /** qmrollback duration (lock `rollback` meanwhile). Default 200. */
  rollbackMs: number;
  /** qmdelsnapshot duration (lock `snapshot-delete` meanwhile). Default 100. */
  delSnapshotMs: number;
}

export const DEFAULT_TIMING: SimTiming = {
  cloneMs: 300,
  fullCloneMs: 600,
  startMs: 150,
  stopMs: 100,
  shutdownMs: 200,
  destroyMs: 150,
  configMs: 50,
  templateMs: 100,
  snapshotMs: 200,
  rollbackMs: 200,
  delSnapshotMs: 100,
};

export interface PveSimulatorOptions {
  /** Which schema and version to behave as: '9' (pve-apidata.json, PVE 9.1) or '8' (pve8-apidata.json, PVE 8.4). Default '9'. */
  mode?: PveMode;
  /** HTTPS with a self-signed certificate generated at start (true) or plain HTTP (false). Default true. */
  tls?: boolean;
  /** Generate a new certificate instead of reusing the one this process already made. Default false. */
  freshCertificate?: boolean;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0 (a random free port). */
  port?: number;
  /** Default [{ name: 'pve1' }]. */
  nodes?: SimNodeConfig[];
  /** Default: `local-lvm` (lvmthin, images+rootdir, linked clones) and `local` (dir, iso+vztmpl+snippets+backup). */
  storages?: SimStorageConfig[];
  /** Resource pools. Default []. */
  pools?: SimPoolConfig[];
  /** Initial VMs. Default: one template 9000 `debian-golden` on the first node with agent and cloud-init. */
  vms?: SimVmSeed[];
  /** API tokens. Default: one token `vmhub@pve!sim` with Administrator on `/` (see `sim.token`). */
  tokens?: SimTokenConfig[];
  /** Task durations in ms. */
  timing?: Partial<SimTiming>;
  /** Guest (agent) behaviour defaults for every VM. */
  guest?: GuestOptions;
  /** Delay before a 401 answer; real PVE waits ~3000 ms. Default 0. */
  authFailureDelayMs?: number;
  /** `/cluster/resources` shows a VM younger than this with status 'unknown' and no name (pvestatd lag). Default 0. */
  resourcesLagMs?: number;
  /** `/cluster/nextid` range [lower, upper). Default [100, 1000000]. */
  nextIdRange?: [number, number];
  /**
   * Clones running at once per target storage before the next one fails with PVE's storage lock
   * timeout (`clone failed: can't lock file '/var/lock/pve-manager/pve-storage-<id>' - got timeout`).
   * Default: unlimited.
   */
  parallelClonesPerStorage?: number;
  /** Seed for fault probabilities. Default 1. */
  seed?: number;
  /** Datacenter `user-tag-access` user-allow. Default 'free'. */
  tagAccess?: 'free' | 'existing' | 'list' | 'none';
  /** Datacenter `user-tag-access` user-allow-list. Default []. */
  tagAllowList?: string[];
  /** Datacenter `registered-tags` (need Sys.Modify on /). Default []. */
  registeredTags?: string[];
  /** What to do when a response fails the `returns` schema: only record it (default) or also answer 500. */
  onViolation?: 'record' | 'respond500';
  /** Folder holding pve-apidata.json and pve8-apidata.json. Default: the package's `schema/`; env PVE_SIM_SCHEMA_DIR. */
  schemaDir?: string;
}
