/** The shape every endpoint implementation shares. */
import type { Caller } from './auth.ts';
import type { Cluster, StartTaskSpec } from './cluster.ts';
import type { SimTask, SimVm } from './model.ts';
import type { HttpMethod } from './schema-tree.ts';

export interface HandlerContext {
  cluster: Cluster;
  caller: Caller;
  /** Path, query and body parameters after PVE's coercions and schema validation. */
  params: Record<string, any>;
  method: HttpMethod;
  template: string;
}

export type Handler = (ctx: HandlerContext) => unknown;

/** A result whose envelope carries more than `data` (e.g. `total` for task logs). */
export class WithEnvelope {
  readonly data: unknown;
  readonly extra: Record<string, unknown>;
  constructor(data: unknown, extra: Record<string, unknown>) {
    this.data = data;
    this.extra = extra;
  }
}

export type HandlerTable = Record<string, Handler>;

export const bool = (v: unknown): boolean => v === 1 || v === true || v === '1';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Start a task on `vm` for the caller (node, id and user filled in): most qm endpoints answer with one. */
export function vmTask({ cluster, caller }: HandlerContext, vm: SimVm, spec: Omit<StartTaskSpec, 'node' | 'id' | 'user'>): SimTask {
  return cluster.startTask({ node: vm.node, id: String(vm.vmid), user: caller.tokenId, ...spec });
}

/** The lock check a qm worker makes first, unless the call passed `skiplock`. */
export function lockCheck({ cluster, params }: HandlerContext, vm: SimVm): void {
  if (!bool(params.skiplock)) cluster.assertUnlocked(vm);
}
