/**
 * The shapes every part of vmhub agrees on: templates, leases, machines, windows, exec results.
 * TypeBox schemas double as TypeScript types and as the JSON Schemas the MCP tools publish.
 */
import { Type, type Static } from '@sinclair/typebox';
import { CAPABILITIES } from './capabilities.ts';

export const CapabilitySchema = Type.Unsafe<(typeof CAPABILITIES)[number]>({ type: 'string', enum: [...CAPABILITIES] });

export const AVAILABILITY = ['available', 'unavailable', 'stub'] as const;
export type Availability = (typeof AVAILABILITY)[number];

/** A template as a client sees it (vm_list_templates). */
export const TemplateInfoSchema = Type.Object({
  id: Type.String(),
  provider: Type.String(),
  adapter: Type.String(),
  os: Type.String(),
  availability: Type.Unsafe<Availability>({ type: 'string', enum: [...AVAILABILITY] }),
  reason: Type.Optional(Type.String()),
  capabilities: Type.Array(Type.String()),
  description: Type.Optional(Type.String()),
});
export type TemplateInfo = Static<typeof TemplateInfoSchema>;

/**
 * Lease states. `provisioning → starting → ready → releasing → released`, plus `failed` and
 * `expired → reaped`. Rows are never deleted: a finished lease stays as a tombstone.
 */
export const LEASE_STATES = ['provisioning', 'starting', 'ready', 'releasing', 'released', 'failed', 'expired', 'reaped'] as const;
export type LeaseState = (typeof LEASE_STATES)[number];
/** States in which the lease still owns (or is about to own) a machine. */
export const LIVE_LEASE_STATES: readonly LeaseState[] = ['provisioning', 'starting', 'ready', 'releasing'];
export const FINAL_LEASE_STATES: readonly LeaseState[] = ['released', 'failed', 'reaped'];

export const StageSchema = Type.Object({
  name: Type.String(),
  status: Type.Unsafe<'pending' | 'running' | 'done' | 'failed'>({ type: 'string', enum: ['pending', 'running', 'done', 'failed'] }),
  detail: Type.Optional(Type.String()),
});
export type Stage = Static<typeof StageSchema>;

/** The lease fields every lease tool returns; LeaseInfo adds bookkeeping fields beside them. */
export const LeaseInfoSchema = Type.Object({
  lease_id: Type.String(),
  status: Type.Unsafe<LeaseState>({ type: 'string', enum: [...LEASE_STATES] }),
  template: Type.String(),
  expires_at: Type.String(),
  /** Readiness stages, in order: {name, status: pending|running|done|failed, detail?}. */
  stages: Type.Array(Type.Unsafe<Stage>({ type: 'object' })),
  /** Why the lease failed: {code, message}. */
  error: Type.Optional(Type.Unsafe<{ code: string; message: string }>({ type: 'object' })),
});
export type LeaseInfo = Static<typeof LeaseInfoSchema> & {
  request_id: string;
  /** What the server is doing about the lease right now, when that is not obvious from status. */
  note?: string;
  owner?: string;
  created_at: string;
  max_expires_at: string;
};

/**
 * vm_lease_status's answer: the lease, and for a ready lease whose machine a person can enter,
 * `access.ssh` — the exact command to run on the vmhub host (`vmhub-server leases ssh <id>`, with
 * `--principal` when the lease is not the local user's), so an agent can tell its person how to look.
 */
export const LeaseStatusSchema = Type.Object({
  ...LeaseInfoSchema.properties,
  access: Type.Optional(Type.Object({
    ssh: Type.String({ description: 'A person\'s shell: run this on the vmhub host.' }),
  })),
  /** With {stats: true}: what the machine uses now, each field only where its provider knows it (MachineStats). */
  stats: Type.Optional(Type.Object({
    cpu_percent: Type.Optional(Type.Number()), memory_bytes: Type.Optional(Type.Integer()), memory_limit_bytes: Type.Optional(Type.Integer()),
    disk_bytes: Type.Optional(Type.Integer()), uptime_seconds: Type.Optional(Type.Number()),
  })),
});
export type LeaseStatusInfo = LeaseInfo & { access?: { ssh: string }; stats?: Static<typeof LeaseStatusSchema>['stats'] };

/**
 * A snapshot as its principal sees it (vm_snapshot): `memory` true when running processes come
 * back with it, false when only the disk or filesystem does; `lease_id` is the lease it was taken
 * of (it outlives that lease until `expires_at`, snapshots.keep_hours after it was made).
 */
export const SnapshotInfoSchema = Type.Object({
  snapshot_id: Type.String(),
  name: Type.Optional(Type.String()),
  lease_id: Type.String(),
  template: Type.String(),
  memory: Type.Boolean(),
  size_bytes: Type.Integer(),
  created_at: Type.String(),
  expires_at: Type.String(),
});
export type SnapshotInfo = Static<typeof SnapshotInfoSchema>;

/** A machine as providers know it: the identity is what teardown verifies. */
export interface MachineRef {
  /** `vmhub-<instance>-<lease uuid>`: carried by the machine itself (label, tag, state record). */
  identity: string;
  /** The provider's own handle (container id, VMID, state dir); never trusted on its own. */
  external_id: string;
  /** Provider node, where the provider has several. */
  node?: string;
  /** Provider-private data needed to reach the machine (addresses, ports); no secrets. */
  details?: Record<string, unknown>;
}

export const WindowSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  class: Type.String(),
  x: Type.Integer(),
  y: Type.Integer(),
  width: Type.Integer(),
  height: Type.Integer(),
  focused: Type.Boolean(),
  visible: Type.Boolean(),
});
export type WindowInfo = Static<typeof WindowSchema>;

export interface ElementNode {
  role: string;
  name?: string;
  /** The element's own text where it has one and no name (a paragraph, a cell, a field), clipped. */
  text?: string;
  /** Set by core (router/refs.ts), never by an adapter: vm_click {ref} / vm_type {ref} target it. */
  ref?: string;
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  states?: string[];
  children?: ElementNode[];
}
