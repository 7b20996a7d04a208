/**
 * Per-test fault injection. A fault matches requests by method and API path (the part after
 * /api2/json, e.g. `/nodes/pve1/qemu/9000/clone`) and fires `count` times (default: forever)
 * with `probability` (default 1, drawn from the simulator's seeded RNG).
 */
import type { Cluster, TaskFailureRule } from './cluster.ts';

export type FaultKind = '500' | '596' | 'slow' | 'drop' | 'lock';

export interface FaultSpec {
  match?: { method?: string; path?: RegExp };
  kind: FaultKind;
  /** 0..1, default 1. */
  probability?: number;
  /** How many matching requests it fires on; default unlimited. */
  count?: number;
  /** 'slow': delay before the request is handled (default 2000). '596': delay before answering (default 0). 'lock': lock the VM in the path for this long and let the request run into it. */
  delayMs?: number;
  /** 'drop': destroy the socket before handling ('before', default) or after the handler ran ('after': the effect happened, the answer is lost). */
  phase?: 'before' | 'after';
  /** '500': the error message (default `simulated failure (pve-simulator fault)`). 'lock': a lock name to answer `VM is locked (<lock>)` instead of the flock timeout. */
  message?: string;
}

export interface ActiveFault extends FaultSpec {
  id: number;
  /** How many times it fired. */
  fired: number;
}

export class Faults {
  private readonly list: ActiveFault[] = [];
  private nextId = 1;
  private readonly cluster: Cluster;

  constructor(cluster: Cluster) {
    this.cluster = cluster;
  }

  /** Adds a fault; returns its id (for `remove`). */
  inject(spec: FaultSpec): number {
    const f: ActiveFault = { ...spec, id: this.nextId++, fired: 0 };
    this.list.push(f);
    return f.id;
  }

  remove(id: number): void {
    const i = this.list.findIndex((f) => f.id === id);
    if (i >= 0) this.list.splice(i, 1);
  }

  /** Removes every request fault and task failure rule and pending nextid races. */
  clear(): void {
    this.list.length = 0;
    this.cluster.taskFailures.length = 0;
    this.cluster.nextIdRaces = 0;
  }

  active(): readonly ActiveFault[] {
    return this.list;
  }

  /** Tasks matching the rule end with `exitstatus` (e.g. `clone failed: ...`) and undo their effect. */
  failTasks(rule: TaskFailureRule): void {
    this.cluster.taskFailures.push(rule);
  }

  /** The next `count` answers of /cluster/nextid are taken by a "concurrent client" right after. */
  raceNextId(count = 1): void {
    this.cluster.nextIdRaces += count;
  }

  /** The fault that fires for this request, if any. */
  pick(method: string, apiPath: string): ActiveFault | undefined {
    for (const f of this.list) {
      if (f.count !== undefined && f.fired >= f.count) continue;
      if (f.match?.method && f.match.method.toUpperCase() !== method) continue;
      if (f.match?.path) {
        f.match.path.lastIndex = 0;
        if (!f.match.path.test(apiPath)) continue;
      }
      if (f.probability !== undefined && this.cluster.rng() >= f.probability) continue;
      f.fired++;
      return f;
    }
    return undefined;
  }
}
