/**
 * What tests read and steer: VMs (config, tags, status, locks, guest), tasks, request counts,
 * destroyed VMs, volumes, tokens, nodes. Views are copies; `raw()` gives the live object.
 */
import type { Cluster } from './cluster.ts';
import type { DestroyRecord, ExecHandler, GuestInterface, SimTask, SimTokenConfig, SimVm, SimVmSeed, ConfigValue } from './model.ts';
import type { RequestStats } from './server.ts';
import { tagSet } from './tags.ts';
import { unknownFormatCounts } from './pve-formats.ts';

export interface VmView {
  vmid: number;
  node: string;
  name: string | undefined;
  status: 'running' | 'stopped';
  template: boolean;
  lock: string | undefined;
  /** Tags as a list (stored form split on `;`). */
  tags: string[];
  /** The stored `tags` string, e.g. `a;b`. */
  tagsRaw: string | undefined;
  pool: string | undefined;
  config: Record<string, ConfigValue>;
  pending: Record<string, ConfigValue>;
  /** Cloud-init values the guest saw at its last start. */
  cloudInitAtStart: Record<string, ConfigValue> | undefined;
  agentReady: boolean;
  /** Snapshot names, oldest first. */
  snapshots: string[];
}

export interface SnapshotView {
  name: string;
  description: string;
  parent: string | undefined;
  /** RAM saved with it. */
  vmstate: boolean;
  snaptime: number;
  config: Record<string, ConfigValue>;
  /** The guest files it keeps (path → content). */
  files: Record<string, string>;
}

export interface TaskView {
  upid: string;
  node: string;
  type: string;
  id: string;
  user: string;
  status: 'running' | 'stopped';
  exitstatus: string | undefined;
  log: string[];
}

export interface GuestOverrides {
  interfaces?: GuestInterface[];
  agentDelayMs?: number;
  exec?: ExecHandler;
}

export class SimState {
  private readonly cluster: Cluster;
  private readonly stats: () => RequestStats;
  private readonly resetStats: () => void;

  constructor(cluster: Cluster, stats: () => RequestStats, resetStats: () => void) {
    this.cluster = cluster;
    this.stats = stats;
    this.resetStats = resetStats;
  }

  /** Starts request counting afresh (totals, per endpoint, log, validated, unimplemented). */
  resetRequests(): void {
    this.resetStats();
  }

  vms(): VmView[] {
    this.cluster.tick();
    return [...this.cluster.vms.values()].map((v) => this.view(v));
  }

  vm(vmid: number): VmView | undefined {
    this.cluster.tick();
    const v = this.cluster.vms.get(vmid);
    return v ? this.view(v) : undefined;
  }

  /** The live VM object (mutations take effect immediately). */
  raw(vmid: number): SimVm | undefined {
    return this.cluster.vms.get(vmid);
  }

  /** A VM's snapshots (config, RAM flag, guest files as UTF-8), oldest first. */
  snapshots(vmid: number): SnapshotView[] {
    this.cluster.tick();
    return [...this.mustVm(vmid).snapshots.values()].map((s) => ({
      name: s.name,
      description: s.description,
      parent: s.parent,
      vmstate: s.vmstate,
      snaptime: s.snaptime,
      config: { ...s.config },
      files: Object.fromEntries([...s.disk.files].map(([k, v]) => [k, v.toString('utf8')])),
    }));
  }

  addVm(seed: SimVmSeed): VmView {
    return this.view(this.cluster.seedVm(seed));
  }

  tasks(): TaskView[] {
    this.cluster.tick();
    return this.cluster.tasks.map(taskView);
  }

  task(upid: string): TaskView | undefined {
    this.cluster.tick();
    const t = this.cluster.findTask(upid);
    return t ? taskView(t) : undefined;
  }

  /** Finishes every running task now (their normal effect or injected failure). */
  settle(): void {
    for (const t of this.cluster.tasks) if (t.status === 'running') this.cluster.completeTask(t);
  }

  get requests(): RequestStats {
    return this.stats();
  }

  /** Distinct `METHOD /template` endpoints answered 2xx with a schema-valid response. */
  endpointsExercised(): string[] {
    return [...this.stats().validated].sort();
  }

  /** Named formats the simulator accepted without a rule (process-wide), with counts. */
  unknownFormats(): Record<string, number> {
    return Object.fromEntries(unknownFormatCounts);
  }

  get destroyed(): readonly DestroyRecord[] {
    return this.cluster.destroyed;
  }

  volumes(): string[] {
    return [...this.cluster.volumes].sort();
  }

  addVolume(volid: string): void {
    this.cluster.volumes.add(volid);
  }

  /** Sets `lock` on a VM; with `durationMs` it is lifted again after that time. */
  lockVm(vmid: number, lock: string, durationMs?: number): void {
    const vm = this.mustVm(vmid);
    vm.config.lock = lock;
    if (durationMs !== undefined) this.cluster.timedUnlocks.push({ vmid, lock, at: this.cluster.now() + durationMs });
  }

  unlockVm(vmid: number): void {
    delete this.mustVm(vmid).config.lock;
  }

  setGuest(vmid: number, o: GuestOverrides): void {
    const g = this.mustVm(vmid).guest;
    if (o.interfaces) g.interfaces = o.interfaces;
    if (o.exec) g.exec = o.exec;
    if (o.agentDelayMs !== undefined) {
      if (g.agentReadyAt !== undefined) g.agentReadyAt += o.agentDelayMs - g.agentDelayMs;
      g.agentDelayMs = o.agentDelayMs;
    }
  }

  /** Put a file in the guest, owned by `owner` (default root). */
  writeGuestFile(vmid: number, file: string, content: string | Buffer, owner = 'root'): void {
    const g = this.mustVm(vmid).guest;
    g.files.set(file, Buffer.isBuffer(content) ? content : Buffer.from(content));
    g.owners.set(file, owner);
  }

  readGuestFile(vmid: number, file: string): Buffer | undefined {
    return this.mustVm(vmid).guest.files.get(file);
  }

  /** Who owns a guest file or directory (root when nobody else does); undefined when it does not exist. */
  guestFileOwner(vmid: number, path: string): string | undefined {
    const g = this.mustVm(vmid).guest;
    const exists = g.files.has(path) || g.dirs.has(path) || [...g.files.keys()].some((k) => k.startsWith(`${path}/`));
    return exists ? (g.owners.get(path) ?? 'root') : undefined;
  }

  /** The permission bits `chmod` / `mkdir -m` gave a guest file or directory (undefined: never set, 644/755). */
  guestFileMode(vmid: number, path: string): number | undefined {
    return this.mustVm(vmid).guest.modes.get(path);
  }

  /** Make a directory in the guest, owned by `owner` (default root). */
  addGuestDir(vmid: number, dir: string, owner = 'root'): void {
    const g = this.mustVm(vmid).guest;
    g.dirs.add(dir);
    g.owners.set(dir, owner);
  }

  setNodeOnline(node: string, online: boolean): void {
    const n = this.cluster.nodes.get(node);
    if (!n) throw new Error(`[vmhub] [pve-simulator] no node '${node}'`);
    n.online = online;
  }

  setNodeMemory(node: string, m: { total?: number; baseUsed?: number }): void {
    const n = this.cluster.nodes.get(node);
    if (!n) throw new Error(`[vmhub] [pve-simulator] no node '${node}'`);
    if (m.total !== undefined) n.memoryTotal = m.total;
    if (m.baseUsed !== undefined) n.memoryBaseUsed = m.baseUsed;
  }

  addToken(t: SimTokenConfig): void {
    this.cluster.tokens.set(t.tokenId, t);
  }

  removeToken(tokenId: string): void {
    this.cluster.tokens.delete(tokenId);
  }

  addPool(poolid: string, comment?: string): void {
    this.cluster.pools.set(poolid, { poolid, ...(comment !== undefined ? { comment } : {}) });
  }

  private mustVm(vmid: number): SimVm {
    const vm = this.cluster.vms.get(vmid);
    if (!vm) throw new Error(`[vmhub] [pve-simulator] no VM ${vmid}`);
    return vm;
  }

  private view(v: SimVm): VmView {
    const now = this.cluster.now();
    return {
      vmid: v.vmid,
      node: v.node,
      name: v.config.name === undefined ? undefined : String(v.config.name),
      status: v.status,
      template: v.config.template === 1,
      lock: v.config.lock === undefined ? undefined : String(v.config.lock),
      tags: tagSet(v.config.tags as string | undefined),
      tagsRaw: v.config.tags === undefined ? undefined : String(v.config.tags),
      pool: v.pool,
      config: { ...v.config },
      pending: { ...v.pending },
      cloudInitAtStart: v.cloudInitAtStart ? { ...v.cloudInitAtStart } : undefined,
      agentReady: v.status === 'running' && v.guest.agentReadyAt !== undefined && now >= v.guest.agentReadyAt && !v.guest.booting,
      snapshots: [...v.snapshots.keys()],
    };
  }
}

function taskView(t: SimTask): TaskView {
  return { upid: t.upid, node: t.node, type: t.type, id: t.id, user: t.user, status: t.status, exitstatus: t.exitstatus, log: [...t.log] };
}
