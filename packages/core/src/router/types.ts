/**
 * What the router needs from its host (the server's lease manager), grouped by responsibility
 * (RouterHost): catalog and lease tools, a way to bind a lease id to its adapter and context, the
 * person's hold on a lease, where finished calls go, and the host services some tools use. The
 * router itself owns validation, policy, capability gating, coordinate mapping, screenshot
 * shaping and error conversion.
 */
import type { Readable } from 'node:stream';
import type { CallToolResult, ClientCapabilities, Implementation } from '@modelcontextprotocol/server';
import type { Adapter, AdapterContext, OpenSession } from '../adapter.ts';
import type { ScreenMapping } from '../screen-mapping.ts';
import type { Baseline } from './changes.ts';
import type { DetachedJobs } from './jobs.ts';
import type { ShapedScreenshot } from '../screenshot.ts';
import type { OcrEngine } from '../ocr/types.ts';
import type { LeaseInfo } from '../shapes.ts';
import type { TemplateConfig } from '../template.ts';
import type { ToolInput, ToolName, ToolOutput } from '../tools.ts';
import type { Toolset } from '../toolsets.ts';

/**
 * What a call carries from its request, whichever protocol revision brought it: the SDK v2
 * handler context (ServerContext) narrowed to what vmhub reads, under the names vmhub's host code
 * already used with SDK v1's RequestHandlerExtra (Router.register builds it: callExtra()).
 */
export interface CallExtra {
  /** Aborted when the client cancels (notifications/cancelled, or a 2026-07-28 HTTP stream closing). */
  signal: AbortSignal;
  /** The request's own `_meta` (progressToken), the reserved io.modelcontextprotocol/* keys lifted out. */
  _meta?: { progressToken?: string | number; [key: string]: unknown };
  /** The principal's AuthInfo (HTTP: from the bearer token; stdio: the local principal). */
  authInfo?: { token: string; clientId: string; scopes: string[]; expiresAt?: number; extra?: Record<string, unknown> };
  /** A notification tied to this request (progress). */
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  /** The HTTP request's headers (absent on stdio). */
  requestInfo?: { headers: Record<string, string | string[] | undefined> };
  /**
   * The client as this request declares it: per request on 2026-07-28 (the `_meta` envelope),
   * from `initialize` on a 2025 connection; absent on a stateless 2025 request (no session).
   */
  client?: { info?: Implementation; capabilities?: ClientCapabilities; protocolVersion?: string };
}

/** A numbered box of a set-of-mark screenshot, in screen pixels. */
export interface ScreenMark {
  id: number;
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An element of the latest vm_inspect, by its ref: its bounds in screen pixels and what it is. */
export interface ElementBox {
  role: string;
  name?: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Per-lease screen state, owned by the lease's session: the latest screenshot's mapping, the
 * marks of the latest `vm_screenshot {marks: true}` (what `vm_click {mark}` clicks), and a digest
 * of the latest screenshot's pixels (the baseline of `vm_wait {for: "change"}`).
 */
export interface ScreenState {
  latest?: ScreenMapping;
  marks?: ScreenMark[];
  /** The latest vm_inspect's elements with bounds, by ref, in screen pixels (router/refs.ts). */
  refs?: Map<string, ElementBox>;
  /**
   * Digest of the decoded pixels of the latest screenshot's region, and that region (screen px).
   * Asked for, not computed up front: vm_screenshot hashes decoded pixels after its answer is on
   * its way (11 MB at 2560×1440 is ~7 ms the agent need not wait for), and decodes a passed-through
   * capture only when vm_wait {for: "change"} asks.
   */
  frame?: { digest: () => Promise<string>; region: { x: number; y: number; width: number; height: number } };
  /** The latest full-screen frame, kept once the agent asked for changed_only (its next call's baseline). */
  baseline?: Baseline;
}

export interface LeaseBinding {
  lease_id: string;
  expires_at: string;
  template: TemplateConfig;
  /** Undefined when the template's adapter plugin is not loaded; `adapterProblem` says why. */
  adapter: Adapter | undefined;
  adapterProblem?: string;
  /** The lease's adapter session (opened once per lease by the host); undefined with no adapter. */
  session: OpenSession | undefined;
  /** Where image coordinates of the lease's latest screenshot are mapped from. */
  screen: ScreenState;
  /** The lease's detached commands (vm_exec {detach}); owned by the lease session. Optional. */
  jobs?: DetachedJobs;
  context: AdapterContext;
  /**
   * The call succeeded: the host shares what it changed in `screen` (its mapping) with the other
   * server processes of its store, before the router answers — so a click through another process
   * maps image coordinates as this call's screenshot showed them. Awaited; a failure fails the
   * call. Optional.
   */
  commit?(): Promise<void>;
  /**
   * The call is done with the lease: called once by the router when the call answers (the host
   * counts the call in flight until then: a restore waits for it). Optional.
   */
  release?(): void;
}

export interface HostClone {
  archive: Readable;
  commit: string;
  ref?: string;
  files: number;
  /**
   * vm_clone_repo {push: true}: the per-lease token the host minted for this one repository, for
   * the adapter's installGitCredential. Secret: never in results, logs or events.
   */
  credential?: { url: string; username: string; secret: string };
  /** Drop the host's copy; `failed`: the clone did not reach the guest, so a minted token is revoked now. */
  cleanup(outcome?: 'ok' | 'failed'): Promise<void>;
}

export interface AuditRecord {
  at: string;
  tool: ToolName | string;
  lease_id?: string;
  outcome: 'ok' | 'error';
  code?: string;
  duration_ms: number;
}

/** A person's hold on a lease (the live view's take-over): the gated tools answer HUMAN_CONTROL. */
export interface HumanControl {
  human: true;
  /** When the person took over (ISO time). */
  since: string;
  /**
   * The person let the agent's commands and file writes (vm_exec, vm_put_file, vm_clone_repo)
   * run while they hold the lease; input tools wait regardless. Default false.
   */
  allow_commands_and_files?: boolean;
}

/** One VM-bound call as it finished, for a lease's recording (the host redacts `args`). */
export interface RecordedCall extends AuditRecord {
  lease_id: string;
  /** The validated-or-not arguments exactly as the client sent them. */
  args: Record<string, unknown>;
  /** What the client got (the screenshot it saw is in `content`). */
  result: CallToolResult;
}

/**
 * What the router needs from its host, by responsibility. Every lease-bound member gets the
 * call's `extra`: its `authInfo` carries the authenticated principal, and a host serving several
 * principals must answer NOT_FOUND — the answer for an id that does not exist — for a lease of
 * another principal, on every tool. Only `settings` and `sessions` are required: a host that serves
 * one fixed lease (the conformance kit) leaves the rest out, and the tools that need a missing
 * group answer CAPABILITY_UNAVAILABLE.
 */
export interface RouterHost {
  settings: RouterSettings;
  /** vm_list_templates, vm_capabilities, vm_health. */
  catalog?: HostCatalog;
  /** The lease tools (vm_lease_*), each for the calling principal. */
  leases?: HostLeases;
  /** vm_snapshot, for the calling principal. */
  snapshots?: HostSnapshots;
  /** A VM-bound call's lease: its session, and whether its machine is still there. */
  sessions: HostSessions;
  /** A person's hold on a lease (the live view's take-over). */
  human?: HostHuman;
  /** Where every finished call is reported. */
  audit?: HostAudit;
  /** vm_clone_repo's host side. */
  clone?: HostCloning;
  /** What the screenshot and text tools use from the host. */
  screenshots?: HostScreenshots;
}

/** The part of the host a VM tool's handler sees (vm-tools.ts and its helpers). */
export type ToolHost = Pick<RouterHost, 'settings' | 'clone' | 'screenshots'>;

/** The catalog tools' answers. */
export interface HostCatalog {
  listTemplates(): Promise<ToolOutput<'vm_list_templates'>>;
  capabilities(input: ToolInput<'vm_capabilities'>, extra: CallExtra): Promise<ToolOutput<'vm_capabilities'>>;
  health(): Promise<ToolOutput<'vm_health'>>;
}

/** The lease tools' answers, for the calling principal (another's lease: NOT_FOUND). */
export interface HostLeases {
  /**
   * MCP resources of a lease the host serves (its recording), linked from vm_lease_create's and
   * vm_lease_release's results as `resource_link` content. Optional.
   */
  resourceLinks?(leaseId: string): { uri: string; name: string; mimeType?: string; description?: string }[];
  /** With snapshot_id: a fork of `count` leases; the first answers, `lease_ids` names them all. */
  create(input: ToolInput<'vm_lease_create'>, extra: CallExtra): Promise<LeaseInfo & { lease_ids?: string[] }>;
  /** Waits at most 25 s (well under clients' 60 s) and sends progress on every stage change. */
  status(input: ToolInput<'vm_lease_status'>, extra: CallExtra): Promise<LeaseInfo>;
  renew(input: ToolInput<'vm_lease_renew'>, extra: CallExtra): Promise<LeaseInfo>;
  release(input: ToolInput<'vm_lease_release'>, extra: CallExtra): Promise<LeaseInfo>;
  /** The calling principal's leases (never another's), newest first, capped. */
  list(input: ToolInput<'vm_lease_list'>, extra: CallExtra): Promise<ToolOutput<'vm_lease_list'>>;
  /**
   * Reboot the lease's machine in place (the lease keeps its id and expiry; status `starting`
   * with the readiness stages until ready again); waits like status {wait_seconds: 25}.
   */
  restart(input: ToolInput<'vm_lease_restart'>, extra: CallExtra): Promise<LeaseInfo>;
  /** The end of the lease's console log or of its events, bounded and scrubbed of credentials. */
  logs(input: ToolInput<'vm_logs'>, extra: CallExtra): Promise<ToolOutput<'vm_logs'>>;
}

/**
 * vm_snapshot's answers, for the calling principal: another principal's snapshot or lease is
 * NOT_FOUND, as an id that never existed. Restore runs on the caller's ready lease (the adapter
 * session hears of it before the next call: AdapterSession.restored).
 */
export interface HostSnapshots {
  snapshot(input: ToolInput<'vm_snapshot'>, extra: CallExtra): Promise<ToolOutput<'vm_snapshot'>>;
}

/** Where a VM-bound call finds its lease. */
export interface HostSessions {
  /**
   * Resolve the caller's lease to its session (opened on first use, kept until the lease ends);
   * throws NOT_FOUND (no such lease, or another principal's), LEASE_EXPIRED or LEASE_NOT_READY.
   * Only a call whose bind succeeded is recorded on the lease. The router calls the binding's
   * `release()` when the call answers: a host that replaces machines under their sessions (a
   * restore) counts the call in flight until then, and may hold a bind while one runs.
   */
  bind(leaseId: string, signal: AbortSignal, extra: CallExtra): Promise<LeaseBinding>;
  /**
   * A call on a ready lease failed: is its machine still there? Resolves the error to answer
   * instead (MACHINE_LOST, the lease already ended) when the machine was removed or stopped
   * behind vmhub's back, else undefined. Must not throw.
   */
  machineLost?(leaseId: string): Promise<Error | undefined>;
}

/** A person's hold on a lease (the live view's take-over) as the router consults it. */
export interface HostHuman {
  /**
   * Whether a person holds the lease. Checked after bind and before the handler of the input
   * tools (HUMAN_GATED_TOOLS) and, unless the person allowed them, of commands and file writes
   * (HUMAN_GATED_GUEST_TOOLS); undefined: the agent drives.
   */
  control(leaseId: string): HumanControl | undefined | Promise<HumanControl | undefined>;
  /** The hand-back note for the lease, consumed: the next successful VM-bound result carries it. */
  takeNote(leaseId: string): string | undefined | Promise<string | undefined>;
}

/** Where finished calls go. Neither may throw; `record` must not block. */
export interface HostAudit {
  /** One record per tool call (the audit log). */
  log?(record: AuditRecord, extra?: CallExtra): void;
  /** One call per finished VM-bound tool call on a lease (its recording). */
  record?(call: RecordedCall, extra?: CallExtra): void;
}

/** vm_clone_repo's host side. */
export interface HostCloning {
  /**
   * Clone on the host (URL policy, host-held credentials) and hand back a tar of the tree.
   * `template`: the bound lease's (its clone_credentials), so the host never looks a lease up.
   * `dest`: where the tree goes in the guest (absolute), for a push token's later refresh.
   */
  onHost(input: ToolInput<'vm_clone_repo'>, template: TemplateConfig, dest?: string): Promise<HostClone>;
}

/** What the screenshot and text tools use from the host. */
export interface HostScreenshots {
  /** Persist a screenshot (VMHUB_SCREENSHOT_DIR); returns the file path. */
  save?(leaseId: string, shot: ShapedScreenshot): Promise<string | undefined>;
  /**
   * The OCR engine for vm_find_text, vm_wait {for: "text"}, vm_click {text} and
   * vm_screenshot {marks}. Resolves the engine, or rejects with CAPABILITY_UNAVAILABLE whose hint
   * says how to install one. Absent: those tools answer the same error.
   */
  ocr?(): Promise<OcrEngine>;
}

export interface RouterSettings {
  denyTools: readonly string[];
  /** The toolsets listed (toolsets.ts, resolved); undefined: every tool. */
  toolsets?: readonly Toolset[];
  screenshot: { format: 'png' | 'jpeg' | 'webp'; maxWidth: number; maxHeight: number; maxBytes: number };
  /** Largest file moved by vm_put_file / vm_get_file. */
  maxFileBytes: number;
  /** Deadline for one VM-bound call, seconds (exec may ask for more, up to its own cap). */
  callTimeoutSeconds: number;
  /**
   * Largest serialized tool result, bytes. Clients cap one message (the official SDK's stdio
   * reader: 10 MiB per line); a larger answer would drop the session, so it is refused with
   * RESULT_TOO_LARGE naming how to ask for less. Default 4 MiB.
   */
  maxResultBytes?: number;
}
