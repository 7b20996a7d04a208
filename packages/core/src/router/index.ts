/**
 * @vmhub/core/router — the MCP tool router. It registers every vm_* tool on the SDK's McpServer
 * (title, description, input and output JSON Schema, annotations), then for each call:
 * validates the input (Ajv, schemas compiled once) → applies policy → for VM-bound tools binds
 * lease → machine → adapter and gates on the adapter's declared capabilities → runs the handler
 * under a deadline → returns structured content. Any failure becomes an `isError` result with
 * `{code, message, retryable, hint}`: no raw exception ever reaches the client.
 */
import type { CallToolResult, ClientCapabilities, Implementation, McpServer, ServerContext, Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Capability } from '../capabilities.ts';
import type { LeaseInfo } from '../shapes.ts';
import { asVmhubError, VmhubError } from '../errors.ts';
import { MAX_LEASE_ID, TOOL_NAMES, TOOLS, VM_TOOLS, type ToolDefinition, type ToolName } from '../tools.ts';
import { TOOLSET_OF, TOOLSETS, toolsetDenied } from '../toolsets.ts';
import { assertValid } from '../validate.ts';
import { batchSeconds } from './batch.ts';
import { assertWithinBudget, DEFAULT_MAX_RESULT_BYTES } from './budget.ts';
import { deadlineSignal } from './deadline.ts';
import { assertAgentMayAct, humanGate } from './human-gate.ts';
import { assertDeliverable } from './deliverable.ts';
import { assertArgsTogether } from './args-together.ts';
import { toHandler, toPublished } from './forms.ts';
import { errorResult, okResult } from './results.ts';
import type { CallExtra, LeaseBinding, RouterHost, ToolHost } from './types.ts';
import { VM_HANDLERS, type BoundLease, type VmToolOutput } from './vm-tools.ts';

export type * from './types.ts';
export { errorResult, okResult } from './results.ts';
export { toScreen } from './coordinates.ts';
export type { BoundLease } from './vm-tools.ts';
export { deadlineSignal } from './deadline.ts';
export { baselineOf, changedBox, type Baseline } from './changes.ts';
export { DetachedJobs, MAX_JOBS_PER_LEASE, type JobLedger, type JobOrigin, type JobOutcome } from './jobs.ts';
export { DEFAULT_MAX_RESULT_BYTES } from './budget.ts';
export { windowPoint } from './window-point.ts';
export { HUMAN_CADENCE_MAX_CHARS } from './cadence.ts';

/**
 * MCP clients time out a request at about 60 s (the SDK's default) unless progress arrives and
 * they reset on it. While a VM-bound call runs, a client that sent a progress token gets a
 * progress notification at least this often, so a long vm_exec, clone, launch or type survives.
 */
export const PROGRESS_EVERY_MS = 10_000;

function heartbeat(name: string, extra: CallExtra): { stop(): void } {
  const token = extra._meta?.progressToken;
  if (token === undefined) return { stop: () => undefined };
  const started = Date.now();
  let n = 0;
  const timer = setInterval(() => {
    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++n, message: `${name} running for ${Math.round((Date.now() - started) / 1000)} s` } }).catch(() => undefined);
  }, PROGRESS_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Errors that say nothing about the machine's health: no need to check on it. */
const NOT_ABOUT_THE_MACHINE = new Set(['INVALID_REQUEST', 'CAPABILITY_UNAVAILABLE', 'POLICY_DENIED', 'RESULT_TOO_LARGE', 'LEASE_EXPIRED', 'HUMAN_CONTROL', 'CANCELLED']);

/**
 * The tools that wait while a person has taken over a lease (human-gate.ts): the input tools
 * always, commands and file writes unless the person allowed them.
 */
export { assertNoHumanHold, HUMAN_GATED_GUEST_TOOLS, HUMAN_GATED_TOOLS } from './human-gate.ts';

/**
 * How a server registers the router on one McpServer: one 2025 client's connection or session,
 * or (2026-07-28) one request.
 */
export interface RegisterOptions {
  /**
   * tools/list as this request answers it: the router's list passed through this (e.g. a View's
   * `_meta.ui` for a host that renders MCP Apps, from `extra.client.capabilities`). Called per
   * tools/list; must not change a tool's name or schemas.
   */
  listTools?: (tools: Tool[], extra: CallExtra) => Tool[];
  /**
   * The principal of requests whose transport attaches none (`ctx.http.authInfo` absent): stdio,
   * where serveStdio passes no per-message extra and the server knows its caller by itself.
   */
  authInfo?: CallExtra['authInfo'];
}

export interface Router {
  /** Register all tools on an McpServer (its tools/list then publishes our JSON Schemas). */
  register(server: McpServer, options?: RegisterOptions): void;
  /** Run one tool call; always resolves (errors are isError results). */
  call(name: string, args: unknown, extra: CallExtra): Promise<CallToolResult>;
  /** The tools/list payload. */
  listTools(): Tool[];
  /**
   * A person's input on a lease they hold (the live view's take-over), through the agent's own
   * tool: its schema, its capability check and its handler (screen coordinates mapped, the
   * adapter called) — without the human gate (the person holds the lease), the toolsets and
   * policy (those limit the agent), or the recording (the caller records the person's step).
   * Runs under `binding.context.signal`. Resolves to the tool's structured result; throws the
   * tool's VmhubError.
   */
  personInput(name: PersonInputTool, args: Record<string, unknown>, binding: LeaseBinding): Promise<Record<string, unknown>>;
}

/** The tools a person's take-over input goes through (Router.personInput); each is a ToolName (personInput indexes TOOLS with it). */
export type PersonInputTool = 'vm_click' | 'vm_type' | 'vm_key' | 'vm_scroll' | 'vm_drag' | 'vm_paste';

export function createRouter(host: RouterHost): Router {
  // The operator's toolsets (toolsets.ts); a host that names none offers every tool.
  const offered = host.settings.toolsets ?? TOOLSETS;
  const listed = (name: ToolName) => offered.includes(TOOLSET_OF[name]);
  const tools: Tool[] = TOOL_NAMES.filter(listed).map((name) => {
    const t = TOOLS[name];
    return { name, title: t.title, description: t.description, inputSchema: t.input as Tool['inputSchema'], outputSchema: withoutExpiry(name, wireOutput(t.output)) as Tool['outputSchema'], annotations: t.annotations };
  });
  // JSON Schema only: the TypeBox objects carry symbol keys that must not leak to the wire.
  const wireTools = JSON.parse(JSON.stringify(tools)) as Tool[];

  /** What one call learnt on its way: the lease it was bound to (only such calls are recorded). */
  interface CallState { bound?: string }

  async function run(name: ToolName, args: unknown, extra: CallExtra, state: CallState): Promise<CallToolResult> {
    const def = TOOLS[name];
    if (!listed(name)) throw toolsetDenied(name, offered);
    // Older flat calls are taken in the published form; the handler reads the flat one (forms.ts).
    const checked = assertValid<Record<string, unknown>>((def as ToolDefinition).check ?? def.input, toPublished(name, (args ?? {}) as Record<string, unknown>), `${name} arguments`);
    if (typeof checked.lease_id === 'string' && checked.lease_id.length > MAX_LEASE_ID) throw new VmhubError('INVALID_REQUEST', `${name} arguments: lease_id must be at most ${MAX_LEASE_ID} characters (got ${checked.lease_id.length})`);
    const input = toHandler(name, checked);
    assertDeliverable(name, input);
    assertArgsTogether(name, input);
    if (host.settings.denyTools.includes(name)) throw new VmhubError('POLICY_DENIED', `${name} is disabled by this server's policy (policy.deny_tools)`);
    switch (name) {
      case 'vm_list_templates': return okResult(await served(host.catalog, name).listTemplates());
      case 'vm_capabilities': return okResult(await served(host.catalog, name).capabilities(input as never, extra));
      case 'vm_health': return okResult(await served(host.catalog, name).health());
      case 'vm_lease_create': return linked(await served(host.leases, name).create(input as never, extra));
      case 'vm_lease_status': return okResult(await served(host.leases, name).status(input as never, extra));
      case 'vm_lease_renew': return okResult(await served(host.leases, name).renew(input as never, extra));
      case 'vm_lease_release': return linked(await served(host.leases, name).release(input as never, extra));
      case 'vm_lease_list': return okResult(await served(host.leases, name).list(input as never, extra));
      case 'vm_lease_restart': return okResult(await served(host.leases, name).restart(input as never, extra));
      case 'vm_logs': return okResult(await served(host.leases, name).logs(input as never, extra));
      case 'vm_snapshot': return okResult(await served(host.snapshots, name).snapshot(input as never, extra));
    }
    // A batch's deadline comes from its steps (their waits plus an allowance each), not one timeout.
    const seconds = name === 'vm_batch' ? batchSeconds(input, host.settings) : Math.max(host.settings.callTimeoutSeconds, ((input.timeout_seconds as number | undefined) ?? 0) + 5);
    const timer = deadlineSignal(seconds * 1000, `${name} did not finish within the call deadline (${seconds} s)`);
    const deadline = AbortSignal.any([extra.signal, timer.signal]);
    try {
      const beat = heartbeat(name, extra);
      try {
        return await runBound(name, def.capability, input, deadline, extra, state);
      } finally {
        beat.stop();
      }
    } finally {
      timer.clear();
    }
  }

  /** A lease tool's answer with `resource_link`s to the lease's resources (HostLeases.resourceLinks). */
  function linked(info: LeaseInfo): CallToolResult {
    const links = host.leases?.resourceLinks?.(info.lease_id) ?? [];
    return okResult(info as unknown as Record<string, unknown>, links.map((l) => ({ type: 'resource_link' as const, ...l })));
  }

  /** `capability` undefined: the handler gates each of its steps itself (vm_batch). */
  async function runBound(name: ToolName, capability: (typeof TOOLS)[ToolName]['capability'], input: Record<string, unknown>, deadline: AbortSignal, extra: CallExtra, state: CallState): Promise<CallToolResult> {
    const binding = await host.sessions.bind(input.lease_id as string, deadline, extra);
    // Counted in flight on the lease until it answers (a restore waits for it): HostSessions.bind.
    try {
      state.bound = binding.lease_id;
      const bound = boundFor(name, capability, binding);
      if (humanGate(name, input)) assertAgentMayAct(name, input, binding.lease_id, await host.human?.control(binding.lease_id));
      const handler = handlerOf(name);
      let out: Awaited<ReturnType<typeof handler>>;
      try {
        out = await abortable(handler(bound, input, { host }), deadline, name);
      } catch (err) {
        // A failure that is not about the input may mean the machine is gone: ask before answering
        // a retryable error an agent would retry forever.
        if (host.sessions.machineLost && !NOT_ABOUT_THE_MACHINE.has(asVmhubError(err).code)) {
          const lost = await host.sessions.machineLost(binding.lease_id).catch(() => undefined);
          if (lost) throw lost;
        }
        throw err;
      }
      await binding.commit?.();
      const result = assertWithinBudget(name, okResult({ lease_id: binding.lease_id, expires_at: binding.expires_at, ...out.structured }, out.content ?? []), host.settings.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES);
      // Taken only once the answer is sure to reach the agent: a failed call keeps the note for the next.
      const note = await host.human?.takeNote(binding.lease_id);
      if (note !== undefined) {
        (result.structuredContent as Record<string, unknown>).human_note = note;
        result.content = [{ type: 'text', text: `Note from the person who had control: ${note}` }, ...result.content];
      }
      return result;
    } finally {
      binding.release?.();
    }
  }

  async function call(name: string, args: unknown, extra: CallExtra): Promise<CallToolResult> {
    const started = Date.now();
    let result: CallToolResult;
    const state: CallState = {};
    try {
      if (!(TOOL_NAMES as string[]).includes(name)) throw unknownTool(name);
      if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
        throw new VmhubError('INVALID_REQUEST', `${name} arguments must be a JSON object, not ${describeJson(args)}`);
      }
      result = await run(name as ToolName, args, extra, state);
    } catch (err) {
      result = errorResult(err);
    }
    try {
      const leaseId = typeof (args as { lease_id?: unknown })?.lease_id === 'string' ? (args as { lease_id: string }).lease_id : undefined;
      const record = { at: new Date(started).toISOString(), tool: name.slice(0, 64), ...(leaseId ? { lease_id: leaseId.slice(0, 64) } : {}), outcome: result.isError ? 'error' as const : 'ok' as const, ...(result.isError ? { code: String((result.structuredContent as { code?: string })?.code) } : {}), duration_ms: Date.now() - started };
      host.audit?.log?.(record, extra);
      // Only a call bound to the lease (the caller's own, ready) joins its recording: a call on
      // another principal's lease, or one refused before binding, is not part of its story.
      if (state.bound !== undefined && Object.hasOwn(VM_HANDLERS, name)) host.audit?.record?.({ ...record, lease_id: state.bound, args: args as Record<string, unknown>, result }, extra);
    } catch { /* auditing and recording never break a call */ }
    return result;
  }

  async function personInput(name: PersonInputTool, args: Record<string, unknown>, binding: LeaseBinding): Promise<Record<string, unknown>> {
    const def = TOOLS[name] as ToolDefinition;
    const input = toHandler(name, assertValid<Record<string, unknown>>(def.check ?? def.input, toPublished(name, { ...args, lease_id: binding.lease_id }), `${name} arguments`));
    const out = await handlerOf(name)(boundFor(name, def.capability, binding), input, { host });
    return out.structured;
  }

  return {
    listTools: () => wireTools,
    call,
    personInput,
    register(server: McpServer, options: RegisterOptions = {}) {
      // Registered on the McpServer for its bookkeeping (titles, annotations, enable/disable) with
      // a permissive zod shape: validation is ours (Ajv against the published JSON Schema), so bad
      // input gets a typed INVALID_REQUEST rather than the SDK's untyped protocol error.
      const loose = z.looseObject({});
      for (const name of TOOL_NAMES) {
        const t = TOOLS[name];
        server.registerTool(name, { title: t.title, description: t.description, inputSchema: loose, outputSchema: loose, annotations: t.annotations }, (args: unknown, ctx: ServerContext) => call(name, args, callExtra(server, ctx, options.authInfo)));
      }
      // tools/list publishes the exact JSON Schemas (TypeBox), not a zod round-trip.
      const { listTools } = options;
      server.server.setRequestHandler('tools/list', (_request, ctx) => ({ tools: listTools ? listTools(wireTools, callExtra(server, ctx, options.authInfo)) : wireTools }));
      // tools/call is ours too: the SDK's handler answers an unknown tool with a bare text error;
      // ours answers it (and every argument problem) with a typed result. Note: the SDK v2 Server
      // checks tools/call against the spec's schema before any handler, so non-object `arguments`
      // or a non-string `name` get its -32602 "Invalid tools/call request" and never reach the
      // RAW_PARAMS branch below (kept for a Server that lets them through).
      server.server.setRequestHandler('tools/call', { params: LenientCallToolParams }, (params, ctx) => {
        const p = params as { name: string; arguments?: unknown; [RAW_PARAMS]?: unknown };
        const extra = callExtra(server, ctx, options.authInfo);
        if (Object.hasOwn(p, RAW_PARAMS)) {
          const raw = p[RAW_PARAMS] as { name?: unknown; arguments?: unknown } | undefined;
          if (typeof raw?.name !== 'string') return errorResult(new VmhubError('INVALID_REQUEST', `tools/call needs params {name, arguments}: got ${describeJson(raw)}`, { hint: 'Send params {name: "<tool from tools/list>", arguments: {...}}.' }));
          return call(raw.name, raw.arguments, extra);
        }
        return call(p.name, p.arguments, extra);
      });
    },
  };
}

/**
 * The capability gate, one for every way onto a lease's adapter: the agent's tool calls, a
 * person's take-over input (personInput) and the live view's own reads of the screen, pointer and
 * clipboard. The binding with its adapter session, once the template's adapter is loaded and
 * declares `capability` (defineAdapter makes declared = implemented); else CAPABILITY_UNAVAILABLE.
 * `what` starts the message (the tool's name, or e.g. `lease <id>`); `capability` undefined: a
 * loaded adapter is enough (vm_batch gates each of its steps itself).
 */
export function boundFor(what: string, capability: Capability | undefined, binding: LeaseBinding): BoundLease {
  const { adapter, session } = binding;
  if (!adapter || !session) throw new VmhubError('CAPABILITY_UNAVAILABLE', `${what}: the adapter "${binding.template.adapter}" of template ${binding.template.id} is not loaded: ${binding.adapterProblem ?? 'plugin missing'}`, { details: { adapter: binding.template.adapter } });
  if (capability && !adapter.capabilities.includes(capability)) {
    throw new VmhubError('CAPABILITY_UNAVAILABLE', `${what}: adapter "${adapter.id}" (template ${binding.template.id}) does not provide "${capability}"; it provides: ${adapter.capabilities.join(', ') || 'nothing'}`, { source: `adapter-${adapter.id}`, details: { adapter: adapter.id, capability } });
  }
  return { ...binding, session };
}

type AnyHandler = (b: BoundLease, i: unknown, e: { host: ToolHost }) => Promise<VmToolOutput>;
const handlerOf = (name: ToolName): AnyHandler => VM_HANDLERS[name] as AnyHandler;

/** The host's group a catalog or lease tool needs, or CAPABILITY_UNAVAILABLE when the host serves none (one fixed lease). */
function served<G>(group: G | undefined, name: ToolName): G {
  if (!group) throw new VmhubError('CAPABILITY_UNAVAILABLE', `${name}: this vmhub host serves one fixed lease, not the catalog or lease tools`, { hint: 'Use the lease_id you were given with the VM tools.' });
  return group;
}

/** Where the untouched params of a malformed tools/call travel to our handler. */
const RAW_PARAMS = 'vmhub/raw-params';

/**
 * tools/call as the SDK's Server accepts it (its own CallToolRequestSchema is checked again on
 * whatever this yields): params that would fail that check (not an object, no string name,
 * non-object arguments) become a harmless stand-in carrying the original under RAW_PARAMS.
 */
const LenientCallToolParams = z.preprocess((p) => {
  const ok = typeof p === 'object' && p !== null && !Array.isArray(p) && typeof (p as { name?: unknown }).name === 'string' && isArgs((p as { arguments?: unknown }).arguments);
  if (ok) return p;
  const base = typeof p === 'object' && p !== null && !Array.isArray(p) ? p : {};
  return { ...base, name: '', arguments: {}, [RAW_PARAMS]: p };
}, z.looseObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }));

/** The 2026-07-28 per-request `_meta` envelope keys (the SDK's *_META_KEY constants). */
const ENVELOPE = { version: 'io.modelcontextprotocol/protocolVersion', client: 'io.modelcontextprotocol/clientInfo', capabilities: 'io.modelcontextprotocol/clientCapabilities' } as const;

/**
 * A request's CallExtra from the SDK v2 handler context. The client's identity and capabilities
 * come from the request's own envelope on 2026-07-28 (there is no initialize), else from the
 * 2025 connection's initialize (the SDK's getClientVersion/getClientCapabilities). `authInfo`:
 * the principal when the transport attached none (RegisterOptions.authInfo).
 */
export function callExtra(server: McpServer, ctx: ServerContext, authInfo?: CallExtra['authInfo']): CallExtra {
  const envelope = (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
  const info = (envelope[ENVELOPE.client] as Implementation | undefined) ?? server.server.getClientVersion();
  const capabilities = (envelope[ENVELOPE.capabilities] as ClientCapabilities | undefined) ?? server.server.getClientCapabilities();
  const protocolVersion = (envelope[ENVELOPE.version] as string | undefined) ?? server.server.getNegotiatedProtocolVersion();
  const req = ctx.http?.req;
  return {
    signal: ctx.mcpReq.signal,
    ...(ctx.mcpReq._meta ? { _meta: ctx.mcpReq._meta as CallExtra['_meta'] } : {}),
    ...(ctx.http?.authInfo ? { authInfo: ctx.http.authInfo as CallExtra['authInfo'] } : authInfo ? { authInfo } : {}),
    sendNotification: (n) => ctx.mcpReq.notify(n as Parameters<ServerContext['mcpReq']['notify']>[0]),
    ...(req ? { requestInfo: { headers: Object.fromEntries(req.headers) } } : {}),
    client: { ...(info ? { info } : {}), ...(capabilities ? { capabilities } : {}), ...(protocolVersion ? { protocolVersion } : {}) },
  };
}

function isArgs(value: unknown): boolean {
  return value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value));
}

function unknownTool(name: string): VmhubError {
  const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  const near = TOOL_NAMES.find((t) => t === name.toLowerCase() || t === `vm_${name.toLowerCase()}` || t.replaceAll('_', '') === name.toLowerCase().replaceAll(/[_-]/g, ''));
  return new VmhubError('NOT_FOUND', `unknown tool "${shown}"${near ? `: did you mean ${near}?` : ''}`, { retryable: false, hint: 'Call tools/list for the tools this server has (all start with vm_).' });
}

/** A short description of a JSON value for an error message (never the whole value). */
function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array (${value.length} items)`;
  if (typeof value === 'string') return `a string (${value.length} characters)`;
  if (typeof value === 'object') return 'an object without a string "name"';
  return `${typeof value} ${String(value).slice(0, 32)}`;
}

/**
 * Output schemas go on the wire without `required`: clients (the SDK's Client among them)
 * validate the structuredContent of error results against the output schema too, and an error's
 * `{code, message, retryable, hint}` must pass. They are also shorter than tools.ts's: no
 * descriptions, and a field's value that is an object or an array only as `{type: "object"}` or
 * `{type: "array"}`. Models never read output schemas (no provider's tool format carries them;
 * clients validate with them), yet they count in tools/list's byte budget; the full shapes stay in
 * tools.ts, which the router and the tests check results against, and in docs/agent-tools.md.
 */
/**
 * A VM tool's published output schema without `expires_at`: every lease-bound result carries it
 * (docs/agent-tools.md), so saying it in 25 schemas cost ~750 bytes of tools/list for nothing a
 * model reads. The lease tools keep it: there it is the answer. Results are unchanged.
 */
function withoutExpiry(name: ToolName, schema: unknown): unknown {
  const props = (schema as { properties?: Record<string, unknown> }).properties;
  if (!(VM_TOOLS as readonly string[]).includes(name) || !props || !('expires_at' in props)) return schema;
  const { expires_at: _, ...rest } = props;
  // Nothing left (vm_drag, vm_scroll): the bare object type says it.
  if (Object.keys(rest).length === 0) { const { properties: _p, ...bare } = schema as Record<string, unknown>; return bare; }
  return { ...(schema as object), properties: rest };
}

function wireOutput(schema: unknown, nested = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => wireOutput(s, nested));
  if (typeof schema !== 'object' || schema === null) return schema;
  const type = (schema as { type?: unknown }).type;
  if (nested && (type === 'object' || type === 'array')) return { type };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'required' || k === 'enum' || (k === 'description' && typeof v === 'string')) continue;
    // `properties` is a map of field schemas, not a schema itself.
    out[k] = k === 'properties' && v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v).map(([name, p]) => [name, wireOutput(p, true)]))
      : wireOutput(v, nested);
  }
  return out;
}

async function abortable<T>(work: Promise<T>, signal: AbortSignal, name: string): Promise<T> {
  if (signal.aborted) throw deadlineError(signal, name);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(deadlineError(signal, name));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
    work.catch(() => undefined);
  }
}

/**
 * Why a call's deadline signal fired: its own timer (TIMEOUT), a typed error a caller aborted with,
 * or else the client — a `notifications/cancelled`, or its connection gone (CANCELLED; audited so).
 */
function deadlineError(signal: AbortSignal, name: string): VmhubError {
  const reason = signal.reason as Error | undefined;
  if (reason?.name === 'TimeoutError') return new VmhubError('TIMEOUT', `${name} did not finish within the call deadline`);
  if (VmhubError.is(reason)) return reason;
  return new VmhubError('CANCELLED', `${name} was cancelled by the client before it finished`, { cause: reason });
}
