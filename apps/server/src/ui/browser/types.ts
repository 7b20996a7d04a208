/**
 * The shapes the dashboard's browser code reads from the JSON API (docs/live-view.md) and the
 * state the lease page's parts share. Types only: nothing here reaches the bundles. The pure
 * modules (input-map.ts, readable.ts) do not import this file: the node tests import them, and
 * this one names DOM types.
 */

export type { FrameGeometry } from './input-map.ts';
import type { FrameGeometry } from './input-map.ts';

/** A lease as GET /api/leases and GET /api/leases/{id} answer it. */
export interface LeaseView {
  lease_id: string;
  status: string;
  template?: string;
  owner?: string | null;
  expires_at?: string;
  control?: string;
  control_since?: string;
  allow_commands_and_files?: boolean;
}

/** The take-over / hand-back answer. */
export interface ControlAnswer {
  control?: string;
  control_since?: string;
  allow_commands_and_files?: boolean;
}

export interface LeaseEvent {
  at: string;
  kind: string;
  detail?: unknown;
}

/** A recording step (GET …/recording). */
export interface Step {
  seq: number;
  at: string;
  tool: string;
  actor: string;
  principal?: string;
  outcome: string;
  code?: string;
  duration_ms?: number;
  args?: unknown;
  result?: unknown;
  note?: string;
  screenshot?: string;
}

export interface Mark { x: number; y: number }
export interface PointerMark extends Mark { source: string }
export interface AgentClick extends Mark { at: string }

/**
 * What the lease page's parts (lease.ts, screen-tools.ts, timeline.ts) share: the lease, who
 * holds it, the frame on display, and the person's input queue (one input at a time, in order).
 */
export interface LeasePage {
  readonly id: string;
  /** /api/leases/<id> */
  readonly base: string;
  readonly screen: HTMLCanvasElement;
  lease: LeaseView | null;
  control: string;
  ended: boolean;
  /** Geometry of the frame on display: what clicks and the overlay map through. */
  shown: FrameGeometry | null;
  /** 1:1 (the screen's own pixels) rather than fit to the column. */
  actualSize: boolean;
  inputs: Promise<unknown>;
}
