/**
 * The simulated cluster: nodes, storages, pools, VMs, volumes, tasks and tokens, plus the rules
 * every handler shares (config file lookup, locks, task completion). Time advances lazily: each
 * request (and each inspection) first completes the tasks whose time has come, so nothing runs
 * in the background and `close()` never leaves timers behind.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { PveSimulatorOptions, SimTiming } from './options.ts';
import { DEFAULT_TIMING } from './options.ts';
import type { ConfigValue, DestroyRecord, GuestOptions, SimNode, SimPoolConfig, SimStorage, SimTask, SimTokenConfig, SimVm, SimVmSeed } from './model.ts';
import { fail } from './pve-error.ts';
import { BASE_DIRS } from './guest-fs.ts';
import { normalizeTags } from './tags.ts';
import type { PveMode, PveSchema, SchemaIndex } from './schema-tree.ts';

export interface TaskFailureRule {
  type?: string | RegExp;
  /** The UPID's id field (source VMID for qmclone). */
  id?: string | number;
  exitstatus: string;
  count?: number;
  probability?: number;
}

export interface StartTaskSpec {
  node: string;
  type: string;
  id: string;
  user: string;
  durationMs: number;
  log?: string[];
  /** Checks the worker does first (lock, state): if one throws, the task ends at once with that error. */
  precheck?: () => void;
  finish?: () => void;
  onFail?: (msg: string) => void;
}

export class Cluster {
  mode: PveMode;
  readonly timing: SimTiming;
  readonly guestDefaults: GuestOptions;
  readonly opts: PveSimulatorOptions;
  readonly nodes = new Map<string, SimNode>();
  readonly storages = new Map<string, SimStorage>();
  readonly pools = new Map<string, SimPoolConfig>();
  readonly vms = new Map<number, SimVm>();
  /** Volume ids that exist on storage (`local-lvm:vm-101-disk-0`), referenced or not. */
  readonly volumes = new Set<string>();
  readonly tasks: SimTask[] = [];
  readonly tokens = new Map<string, SimTokenConfig>();
  readonly destroyed: DestroyRecord[] = [];
  readonly taskFailures: TaskFailureRule[] = [];
  /** Locks set by tests with a duration: removed by `tick()` when due. */
  readonly timedUnlocks: Array<{ vmid: number; lock: string; at: number }> = [];
  /** VMIDs a "concurrent client" takes right after `/cluster/nextid` hands them out. */
  nextIdRaces = 0;
  readonly rng: () => number;
  private pidCounter = 0x3a000 + randomInt(0x1000);
  private readonly pstartBase = 0x127c9d4 + randomInt(0x10000);

  constructor(opts: PveSimulatorOptions) {
    this.opts = opts;
    this.mode = opts.mode ?? '9';
    this.timing = { ...DEFAULT_TIMING, ...opts.timing };
    this.guestDefaults = opts.guest ?? {};
    let seed = (opts.seed ?? 1) >>> 0;
    this.rng = () => {
      seed = (seed + 0x6d2b79f5) >>> 0;
      let t = seed;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    for (const n of opts.nodes ?? [{ name: 'pve1' }]) {
      this.nodes.set(n.name, {
        name: n.name,
        online: n.online ?? true,
        memoryTotal: n.memoryTotal ?? 64 * 2 ** 30,
        memoryBaseUsed: n.memoryBaseUsed ?? 4 * 2 ** 30,
        cpus: n.cpus ?? 16,
      });
    }
    const storages = opts.storages ?? [
      { id: 'local-lvm', type: 'lvmthin', content: ['images', 'rootdir'] },
      { id: 'local', type: 'dir', content: ['iso', 'vztmpl', 'snippets', 'backup'], linkedClone: false },
    ];
    for (const s of storages) {
      const type = s.type ?? 'lvmthin';
      this.storages.set(s.id, {
        id: s.id,
        type,
        content: s.content ?? ['images', 'rootdir'],
        shared: s.shared ?? false,
        nodes: s.nodes,
        linkedClone: s.linkedClone ?? ['lvmthin', 'zfspool', 'rbd', 'dir', 'nfs', 'cephfs'].includes(type),
        total: s.total ?? 500 * 2 ** 30,
      });
    }
    for (const p of opts.pools ?? []) this.pools.set(p.poolid, p);
    const seeds: SimVmSeed[] = opts.vms ?? [
      { vmid: 9000, name: 'debian-golden', template: true, description: 'vmhub golden image', tags: 'golden' },
    ];
    for (const seed of seeds) this.seedVm(seed);
  }

  /** SHA-256 fingerprint of the HTTPS certificate (shown in /nodes as ssl_fingerprint). */
  fingerprint: string | undefined;
  /** Set by the server; switched by `setMode`. */
  schema!: SchemaIndex;

  schemaProps(template: string): Record<string, PveSchema> | undefined {
    return (this.schema.method(template, 'PUT') ?? this.schema.method(template, 'POST'))?.parameters?.properties;
  }

  now(): number {
    return Date.now();
  }

  firstNode(): string {
    return [...this.nodes.keys()][0] ?? 'pve1';
  }

  imageStorage(): string {
    return [...this.storages.values()].find((s) => s.content.includes('images'))?.id ?? 'local-lvm';
  }

  seedVm(seed: SimVmSeed): SimVm {
    const node = seed.node ?? this.firstNode();
    const storage = seed.storage ?? this.imageStorage();
    const disk = seed.template ? `base-${seed.vmid}-disk-0` : `vm-${seed.vmid}-disk-0`;
    const config: Record<string, ConfigValue> = {
      name: seed.name ?? `vm${seed.vmid}`,
      cores: 2,
      sockets: 1,
      memory: '2048',
      ostype: 'l26',
      scsihw: 'virtio-scsi-single',
      scsi0: `${storage}:${disk},size=8G`,
      ide2: `${storage}:vm-${seed.vmid}-cloudinit,media=cdrom`,
      boot: 'order=scsi0',
      net0: `virtio=${randomMac()},bridge=vmbr0`,
      smbios1: `uuid=${randomUUID()}`,
      vmgenid: randomUUID(),
      ...(seed.agent === false ? {} : { agent: '1' }),
      ...(seed.template ? { template: 1 } : {}),
      ...(seed.tags ? { tags: normalizeTags(seed.tags) } : {}),
      ...(seed.description ? { description: seed.description } : {}),
      ...seed.config,
    };
    this.volumes.add(`${storage}:${disk}`);
    const vm = this.createVm(seed.vmid, node, config);
    vm.pool = seed.pool;
    if (seed.status === 'running') this.markStarted(vm);
    return vm;
  }

  createVm(vmid: number, node: string, config: Record<string, ConfigValue>): SimVm {
    const vm: SimVm = {
      vmid,
      node,
      config,
      pending: {},
      status: 'stopped',
      paused: false,
      startedAt: undefined,
      pid: undefined,
      pool: undefined,
      createdAt: this.now(),
      guest: {
        agentDelayMs: this.guestDefaults.agentDelayMs ?? 500,
        agentReadyAt: undefined,
        booting: false,
        interfaces: undefined,
        exec: undefined,
        files: new Map(),
        owners: new Map(),
        dirs: new Set(BASE_DIRS),
        modes: new Map(),
        execs: new Map(),
        nextPid: 1000 + randomInt(1000),
      },
      cloudInitAtStart: undefined,
      snapshots: new Map(),
      snapParent: undefined,
    };
    this.vms.set(vmid, vm);
    return vm;
  }

  markStarted(vm: SimVm): void {
    Object.assign(vm.config, vm.pending);
    vm.pending = {};
    vm.status = 'running';
    vm.paused = false;
    vm.startedAt = this.now();
    vm.pid = 10000 + randomInt(50000);
    vm.guest.agentReadyAt = this.now() + vm.guest.agentDelayMs;
    vm.guest.execs.clear();
    const ci: Record<string, ConfigValue> = {};
    for (const [k, v] of Object.entries(vm.config)) if (/^(ci|ipconfig\d|sshkeys|nameserver|searchdomain)/.test(k)) ci[k] = v;
    vm.cloudInitAtStart = ci;
    // cloud-init makes the user and its home; the guest's files then belong to it.
    if (typeof ci.ciuser === 'string' && /^[a-z_][a-z0-9_-]*$/.test(ci.ciuser) && ci.ciuser !== 'root') {
      const home = `/home/${ci.ciuser}`;
      vm.guest.dirs.add(home);
      if (!vm.guest.owners.has(home)) vm.guest.owners.set(home, ci.ciuser);
    }
    this.runBootHook(vm, ci);
  }

  /**
   * `qm reset`: the guest starts over inside the same QEMU process — its processes (agent execs)
   * are gone and its agent answers again only once it has booted (agentDelayMs), it boots with the
   * cloud-init values it had, and its disk stays; the pid, the process start (uptime counts on)
   * and pending configuration do not change, as in qemu-server (QMP system_reset).
   */
  markReset(vm: SimVm): void {
    vm.paused = false;
    vm.guest.agentReadyAt = this.now() + vm.guest.agentDelayMs;
    vm.guest.execs.clear();
    this.runBootHook(vm, vm.cloudInitAtStart ?? {});
  }

  private runBootHook(vm: SimVm, ci: Record<string, ConfigValue>): void {
    const hook = this.guestDefaults.onBoot;
    if (!hook) return;
    const cloudInit: Record<string, string> = {};
    for (const [k, v] of Object.entries(ci)) {
      let text = String(v);
      if (k === 'sshkeys') {
        try {
          text = decodeURIComponent(text);
        } catch {
          // stored values were validated as urlencoded; keep the raw text if not
        }
      }
      cloudInit[k] = text;
    }
    const tags = typeof vm.config.tags === 'string' ? vm.config.tags.split(';').filter(Boolean) : [];
    const started = vm.startedAt;
    try {
      const r = hook({ vmid: vm.vmid, node: vm.node, name: vm.config.name === undefined ? undefined : String(vm.config.name), tags, cloudInit });
      if (r && typeof (r as Promise<void>).then === 'function') {
        vm.guest.booting = true;
        (r as Promise<void>).then(
          () => {
            if (vm.startedAt === started) vm.guest.booting = false;
          },
          (e: unknown) => {
            process.stderr.write(`[vmhub] [pve-simulator] guest.onBoot for VM ${vm.vmid} failed: ${(e as Error).message}\n`);
          },
        );
      }
    } catch (e) {
      process.stderr.write(`[vmhub] [pve-simulator] guest.onBoot for VM ${vm.vmid} failed: ${(e as Error).message}\n`);
    }
  }

  markStopped(vm: SimVm): void {
    vm.status = 'stopped';
    vm.paused = false;
    vm.startedAt = undefined;
    vm.pid = undefined;
    vm.guest.agentReadyAt = undefined;
    vm.guest.booting = false;
    vm.guest.execs.clear();
  }

  /** The VM's config file on `node`, as `PVE::QemuConfig->load_config` finds it. */
  vmOn(node: string, vmid: number): SimVm {
    const vm = this.vms.get(vmid);
    if (!vm || vm.node !== node) throw fail(`Configuration file 'nodes/${node}/qemu-server/${vmid}.conf' does not exist`);
    return vm;
  }

  assertUnlocked(vm: SimVm): void {
    const lock = vm.config.lock;
    if (lock !== undefined) throw fail(`VM is locked (${lock})`);
  }

  nodeMemoryUsed(node: string): number {
    const n = this.nodes.get(node);
    let used = n?.memoryBaseUsed ?? 0;
    for (const vm of this.vms.values()) if (vm.node === node && vm.status === 'running') used += memoryMiB(vm) * 2 ** 20;
    return used;
  }

  // ---- tasks -------------------------------------------------------------------------------

  startTask(spec: StartTaskSpec): SimTask {
    const now = this.now();
    const pid = ++this.pidCounter;
    const pstart = this.pstartBase + Math.floor(process.uptime() * 100);
    const starttime = Math.floor(now / 1000);
    const hex = (n: number, w: number): string => n.toString(16).toUpperCase().padStart(w, '0');
    const upid = `UPID:${spec.node}:${hex(pid, 8)}:${hex(pstart, 8)}:${hex(starttime, 8)}:${spec.type}:${spec.id}:${spec.user}:`;
    const task: SimTask = {
      upid,
      node: spec.node,
      type: spec.type,
      id: spec.id,
      user: spec.user,
      pid,
      pstart,
      starttime,
      status: 'running',
      exitstatus: undefined,
      endtime: undefined,
      endsAt: now + spec.durationMs,
      log: [...(spec.log ?? [])],
      finish: spec.finish,
      onFail: spec.onFail,
    };
    task.injected = this.matchTaskFailure(task);
    this.tasks.push(task);
    if (spec.precheck) {
      try {
        spec.precheck();
      } catch (e) {
        this.completeTask(task, (e as Error).message);
      }
    }
    return task;
  }

  private matchTaskFailure(task: SimTask): string | undefined {
    for (const rule of this.taskFailures) {
      if (rule.count !== undefined && rule.count <= 0) continue;
      if (rule.type !== undefined && !(typeof rule.type === 'string' ? rule.type === task.type : rule.type.test(task.type))) continue;
      if (rule.id !== undefined && String(rule.id) !== task.id) continue;
      if (rule.probability !== undefined && this.rng() >= rule.probability) continue;
      if (rule.count !== undefined) rule.count--;
      return rule.exitstatus;
    }
    return undefined;
  }

  /** Completes every task whose time has come, oldest deadline first. */
  tick(): void {
    const now = this.now();
    for (let i = this.timedUnlocks.length - 1; i >= 0; i--) {
      const u = this.timedUnlocks[i]!;
      if (u.at > now) continue;
      const vm = this.vms.get(u.vmid);
      if (vm && vm.config.lock === u.lock) delete vm.config.lock;
      this.timedUnlocks.splice(i, 1);
    }
    const due = this.tasks.filter((t) => t.status === 'running' && t.endsAt <= now).sort((a, b) => a.endsAt - b.endsAt);
    for (const t of due) this.completeTask(t);
  }

  completeTask(t: SimTask, forced?: string): void {
    if (t.status !== 'running') return;
    let exit = 'OK';
    try {
      const injected = forced ?? t.injected;
      // `WARNINGS: n` is success with warnings: the effect happens, only the status differs
      const warnings = injected !== undefined && /^WARNINGS: \d+$/.test(injected);
      if (injected !== undefined && !warnings) throw new Error(injected);
      t.finish?.();
      if (warnings) {
        exit = injected;
        t.log.push('WARN: simulated warning');
      }
    } catch (e) {
      exit = (e as Error).message.replace(/\n+$/, '');
      try {
        t.onFail?.(exit);
      } catch {
        // cleanup of a failed task must not hide the original error
      }
    }
    t.status = 'stopped';
    t.exitstatus = exit;
    t.endtime = Math.floor(this.now() / 1000);
    t.log.push(exit === 'OK' ? 'TASK OK' : exit.startsWith('WARNINGS: ') ? `TASK ${exit}` : `TASK ERROR: ${exit}`);
  }

  findTask(upid: string): SimTask | undefined {
    return this.tasks.find((t) => t.upid === upid);
  }

  /** Next free VMID as `/cluster/nextid` computes it (nothing is reserved). */
  nextFreeId(): number {
    const [lo, hi] = this.opts.nextIdRange ?? [100, 1000000];
    for (let id = lo; id < hi; id++) if (!this.vms.has(id)) return id;
    throw fail(`unable to get any free VMID in range [${lo}, ${hi}]`);
  }

  tokenUser(tokenId: string): string {
    return tokenId.split('!')[0] ?? tokenId;
  }
}

export function memoryMiB(vm: SimVm): number {
  const m = String(vm.config.memory ?? '512');
  const cur = /(?:^|,)(?:current=)?(\d+)/.exec(m);
  return cur ? Number(cur[1]) : 512;
}

export function randomMac(): string {
  const b = randomBytes(5);
  return ['BC', ...[...b].map((x) => x.toString(16).toUpperCase().padStart(2, '0'))].join(':');
}
