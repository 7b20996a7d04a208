/**
 * Adapter: drives what runs inside a machine (screen, input, windows, files, exec) through the
 * GuestChannel or console handle its provider gives it. It never knows the transport.
 *
 * Coordinates reaching an adapter are always screen pixels: core maps image coordinates from
 * the lease's latest screenshot back to the screen and rejects points off the screen.
 */
import type { Readable } from 'node:stream';
import type { TSchema } from '@sinclair/typebox';
import type { Capability } from './capabilities.ts';
import type { ConsoleHandle, ExecResult, GuestChannel, RawScreen } from './channel.ts';
import type { ElementNode, MachineRef, WindowInfo } from './shapes.ts';
import type { TemplateConfig } from './template.ts';

export interface AdapterContext {
  lease_id: string;
  machine: MachineRef;
  /** The lease's template; per-template adapter settings are in `template.adapter_options`. */
  template: TemplateConfig;
  /** The lease's pooled GuestChannel (opened once). Throws CAPABILITY_UNAVAILABLE if the provider has none. */
  channel(): Promise<GuestChannel>;
  /** The lease's console handle. Throws CAPABILITY_UNAVAILABLE if the provider has none. */
  console(): Promise<ConsoleHandle>;
  /**
   * Aborted when the call's deadline passes or the client cancels. Pass it to every
   * `GuestChannel.exec` (ExecOptions.signal) so a cancelled call stops in the guest too.
   */
  signal: AbortSignal;
}

export type MouseButton = 'left' | 'right' | 'middle';
export type Modifier = 'ctrl' | 'shift' | 'alt' | 'super';
export interface Point { x: number; y: number }

/** One method per capability (see CAPABILITY_METHOD). Declare exactly what you implement. */
export interface AdapterMethods {
  /** Capture the whole screen; core crops, scales and encodes. */
  screenshot?(ctx: AdapterContext): Promise<RawScreen>;
  inspect?(ctx: AdapterContext, input: { max_depth: number }): Promise<{ source: string; tree: ElementNode }>;
  listWindows?(ctx: AdapterContext): Promise<WindowInfo[]>;
  focus?(ctx: AdapterContext, input: { window: string }): Promise<WindowInfo>;
  close?(ctx: AdapterContext, input: { window: string }): Promise<{ window_id: string }>;
  launch?(ctx: AdapterContext, input: { app: string; args: string[]; wait_seconds: number }): Promise<{ pid?: number; window?: WindowInfo }>;
  click?(ctx: AdapterContext, input: Point & { button: MouseButton; count: number; modifiers: Modifier[] }): Promise<void>;
  type?(ctx: AdapterContext, input: { text: string }): Promise<void>;
  key?(ctx: AdapterContext, input: { keys: string }): Promise<void>;
  paste?(ctx: AdapterContext, input: { text: string }): Promise<void>;
  drag?(ctx: AdapterContext, input: { from: Point; to: Point; button: MouseButton }): Promise<void>;
  scroll?(ctx: AdapterContext, input: Point & { direction: 'up' | 'down' | 'left' | 'right'; amount: number }): Promise<void>;
  putFile?(ctx: AdapterContext, input: { path: string; data: Buffer; mode?: number }): Promise<void>;
  getFile?(ctx: AdapterContext, input: { path: string; max_bytes: number }): Promise<Buffer>;
  /** Unpack a host-made clone (tar of the working tree with .git) at dest. */
  cloneRepo?(ctx: AdapterContext, input: { dest: string; archive: Readable }): Promise<void>;
  exec?(ctx: AdapterContext, input: { argv: string[]; cwd?: string; stdin?: string; timeout_ms: number; max_output_bytes: number }): Promise<ExecResult>;
  /** Screen size in pixels, for bounds checks before any screenshot was taken. Optional. */
  screenSize?(ctx: AdapterContext): Promise<{ width: number; height: number }>;
  /**
   * What this machine cannot do right now although declared (e.g. AT-SPI missing from the
   * golden), with reasons. Used by vm_capabilities. Optional; never throws.
   */
  probe?(ctx: AdapterContext): Promise<Partial<Record<Capability, string>>>;
  /** Forget per-lease state (caches). Called on release. */
  release?(lease_id: string): Promise<void>;
}

/** A verb served by vm_dispatch: its args are validated against `args` before `run`. */
export interface VerbSpec {
  description: string;
  args: TSchema;
  run(ctx: AdapterContext, args: Record<string, unknown>): Promise<unknown>;
}

export interface Adapter extends AdapterMethods {
  readonly kind: 'adapter';
  readonly id: string;
  readonly version: string;
  readonly contractVersion: number;
  readonly capabilities: readonly Capability[];
  readonly verbs: readonly { verb: string; description: string }[];
  dispatch?(ctx: AdapterContext, input: { verb: string; args: Record<string, unknown> }): Promise<unknown>;
}
