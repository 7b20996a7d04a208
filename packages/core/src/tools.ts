/**
 * The tool surface: every `vm_*` tool with its input and output schema, annotations and the
 * capability it needs. All tools are always listed; the router gates each call on the lease's
 * adapter. Descriptions are short on purpose: agents pay tokens for every byte of tools/list
 * (bench/RESULTS.md tracks the size).
 */
import { Type, type TSchema, type Static } from '@sinclair/typebox';
import type { Capability } from './capabilities.ts';
import { LEASE_STATES, LeaseInfoSchema, StageSchema, TemplateInfoSchema, WindowSchema } from './shapes.ts';

const Strict = { additionalProperties: false } as const;
/** A string enum as plain JSON Schema `enum` (TypeBox's literal unions are 3× larger on the wire). */
const StrEnum = <const T extends string>(values: readonly T[], options: Record<string, unknown> = {}) => Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
const LeaseId = Type.String({ maxLength: 64 });
// No bounds here: a point off the screen (negative or past the edge) is refused by the off-screen
// check with a clearer message, and every byte of tools/list costs agents tokens.
const Coord = Type.Number();
const Space = Type.Optional(StrEnum(['image', 'screen']));
const Button = Type.Optional(StrEnum(['left', 'right', 'middle']));
const GuestPath = Type.String({ minLength: 1, maxLength: 4096 });
const Window = Type.String({ maxLength: 512 });
const ExpiresAt = Type.String();
/** A screen-pixel rectangle. */
const Region = Type.Object({ x: Coord, y: Coord, width: Type.Integer({ minimum: 1 }), height: Type.Integer({ minimum: 1 }) }, Strict);
const Box = { x: Type.Number(), y: Type.Number(), width: Type.Number(), height: Type.Number() };
const TextQuery = Type.String({ minLength: 1, maxLength: 256 });

/** Output fields every lease-bound tool returns. */
const bound = <P extends Record<string, TSchema>>(props: P) => Type.Object({ expires_at: ExpiresAt, ...props });

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDefinition<I extends TSchema = TSchema, O extends TSchema = TSchema> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** The capability the lease's adapter must declare; undefined for catalog and lease tools. */
  capability?: Capability;
  /** Bound to a lease but gated per step by its handler (vm_batch), not by one capability. */
  bound?: true;
}

const tool = <I extends TSchema, O extends TSchema>(d: ToolDefinition<I, O>) => d;
// openWorldHint is left out (its default is true): a VM is the agent's own closed world, and
// every byte of tools/list costs tokens; only vm_clone_repo, which reaches the network, says so.
const RO: ToolAnnotations = { readOnlyHint: true };
const ACT: ToolAnnotations = { destructiveHint: false };
const DESTRUCTIVE: ToolAnnotations = { destructiveHint: true };

/** What a vm_batch step may do: the input tools, a fixed pause, and vm_wait. */
export const BATCH_ACTIONS = ['click', 'type', 'key', 'paste', 'drag', 'scroll', 'wait', 'wait_for'] as const;
export type BatchAction = (typeof BATCH_ACTIONS)[number];

export const TOOLS = {
  vm_list_templates: tool({
    name: 'vm_list_templates', title: 'List templates',
    description: 'Templates: capabilities, availability and why not.',
    input: Type.Object({}, Strict),
    output: Type.Object({ templates: Type.Array(TemplateInfoSchema) }),
    annotations: { ...RO, idempotentHint: true },
  }),
  vm_capabilities: tool({
    name: 'vm_capabilities', title: 'Capabilities',
    description: 'What a lease or template can do, and why not.',
    // lease_id "" is refused here: it is not "no lease_id" (it used to fall through to the template branch).
    input: Type.Object({ lease_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })), template: Type.Optional(Type.String({ maxLength: 128 })) }, Strict),
    output: Type.Object({
      template: Type.String(), adapter: Type.String(), provider: Type.String(),
      capabilities: Type.Array(Type.String()),
      unavailable: Type.Array(Type.Object({ capability: Type.String(), reason: Type.String() })),
      verbs: Type.Array(Type.Object({ verb: Type.String() })),
      lease_id: Type.Optional(Type.String()), expires_at: Type.Optional(ExpiresAt),
    }),
    annotations: { ...RO, idempotentHint: true },
  }),
  vm_health: tool({
    name: 'vm_health', title: 'Health',
    description: 'Server, store, plugins, providers, sessions: versions, problems.',
    input: Type.Object({}, Strict),
    output: Type.Object({
      status: StrEnum(['ok', 'degraded']),
      version: Type.String(),
      store: Type.Object({ ok: Type.Boolean(), kind: StrEnum(['sqlite', 'postgres']), path: Type.String(), reason: Type.Optional(Type.String()) }),
      plugins: Type.Array(Type.Object({ id: Type.String(), ok: Type.Boolean(), reason: Type.Optional(Type.String()) })),
      // not_configured: nobody set this provider up (e.g. Proxmox without PVE_HOST); it does not make status degraded.
      providers: Type.Array(Type.Object({ id: Type.String(), ok: Type.Boolean(), not_configured: Type.Optional(Type.Boolean()), reason: Type.Optional(Type.String()) })),
      /** This process's lease sessions: open sessions and the channels/consoles they hold open. */
      sessions: Type.Object({ open: Type.Integer(), channels: Type.Integer() }),
    }),
    annotations: { ...RO },
  }),
  vm_lease_create: tool({
    name: 'vm_lease_create', title: 'Create lease',
    description: 'Create a VM from a template; returns at once, or waits wait_seconds for ready. Same request_id (per caller), same lease.',
    input: Type.Object({
      template: Type.String({ maxLength: 128 }),
      request_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' })),
      ttl_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400 })),
      owner: Type.Optional(Type.String({ maxLength: 128 })),
      // The same bounded wait as vm_lease_status: one-shot clients get a ready lease in one call.
      wait_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 25, description: 'Wait this long for ready.' })),
    }, Strict),
    output: LeaseInfoSchema,
    annotations: { ...ACT, idempotentHint: true },
  }),
  vm_lease_status: tool({
    name: 'vm_lease_status', title: 'Lease status',
    description: 'Lease state and stages; waits wait_seconds for ready.',
    input: Type.Object({ lease_id: LeaseId, wait_seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 25 })) }, Strict),
    output: LeaseInfoSchema,
    annotations: { ...RO },
  }),
  vm_lease_renew: tool({
    name: 'vm_lease_renew', title: 'Renew lease',
    description: 'Push expiry to now + ttl_seconds (≤ max lifetime).',
    input: Type.Object({ lease_id: LeaseId, ttl_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86400 })) }, Strict),
    output: LeaseInfoSchema,
    annotations: { ...ACT, idempotentHint: true },
  }),
  vm_lease_release: tool({
    name: 'vm_lease_release', title: 'Release lease',
    description: 'Destroy the VM and its secrets. Idempotent.',
    input: Type.Object({ lease_id: LeaseId }, Strict),
    output: LeaseInfoSchema,
    annotations: { ...DESTRUCTIVE, idempotentHint: true },
  }),
  vm_lease_list: tool({
    name: 'vm_lease_list', title: 'List leases',
    description: 'Your leases, newest first (find a lost lease_id); live = not ended.',
    input: Type.Object({ owner: Type.Optional(Type.String({ maxLength: 128 })), status: Type.Optional(StrEnum([...LEASE_STATES, 'live'])) }, Strict),
    output: Type.Object({ leases: Type.Array(LeaseInfoSchema), truncated: Type.Boolean() }),
    annotations: { ...RO, idempotentHint: true },
  }),
  vm_screenshot: tool({
    name: 'vm_screenshot', title: 'Screenshot', capability: 'screenshot',
    description: 'See the screen; input tools use its pixels. region + scale>1 zooms; marks numbers text.',
    input: Type.Object({
      lease_id: LeaseId,
      format: Type.Optional(StrEnum(['png', 'jpeg', 'webp'])),
      max_width: Type.Optional(Type.Integer({ minimum: 64, maximum: 4096 })),
      max_height: Type.Optional(Type.Integer({ minimum: 64, maximum: 4096 })),
      region: Type.Optional(Region), // screen pixels
      scale: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 8 })),
      marks: Type.Optional(Type.Boolean()),
      /**
       * Only the box of pixels changed since this lease's previous full-screen screenshot (the whole
       * screen the first time): origin and width/scale, height/scale say where it is; nothing
       * changed → bytes 0 and no image (the previous image's mapping stays).
       */
      changed_only: Type.Optional(Type.Boolean()),
    }, Strict),
    output: bound({
      width: Type.Integer(), height: Type.Integer(), scale: Type.Number(),
      origin: Type.Object({ x: Type.Number(), y: Type.Number() }),
      screen: Type.Object({ width: Type.Integer(), height: Type.Integer() }),
      format: Type.String(), bytes: Type.Integer(), file: Type.Optional(Type.String()),
      marks: Type.Optional(Type.Array(Type.Object({ id: Type.Integer(), text: Type.String(), ...Box }))),
    }),
    annotations: RO,
  }),
  vm_wait: tool({
    name: 'vm_wait', title: 'Wait for screen', capability: 'screenshot',
    description: 'Wait until the screen settles (settle_ms), shows text, or changes.',
    input: Type.Object({
      lease_id: LeaseId,
      for: StrEnum(['settle', 'text', 'change']),
      text: Type.Optional(TextQuery),
      region: Type.Optional(Region),
      timeout_seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 300 })),
      settle_ms: Type.Optional(Type.Integer({ minimum: 50, maximum: 60000 })),
    }, Strict),
    output: bound({
      satisfied: Type.Boolean(), waited_ms: Type.Integer(),
      /** for "text": the match, shaped as one of vm_find_text's. */
      match: Type.Optional(Type.Unknown()),
    }),
    annotations: RO,
  }),
  vm_find_text: tool({
    name: 'vm_find_text', title: 'Find text', capability: 'screenshot',
    description: 'Find text on screen (OCR); boxes in latest-screenshot pixels.',
    input: Type.Object({
      lease_id: LeaseId, text: TextQuery, region: Type.Optional(Region),
      min_confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    }, Strict),
    output: bound({
      matches: Type.Array(Type.Object({ text: Type.String(), confidence: Type.Number(), ...Box })),
    }),
    annotations: RO,
  }),
  vm_inspect: tool({
    name: 'vm_inspect', title: 'Inspect UI', capability: 'inspect',
    description: 'Element tree (roles, names, bounds) for text-only models.',
    input: Type.Object({ lease_id: LeaseId, max_depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })) }, Strict),
    output: bound({ source: Type.String(), tree: Type.Unknown() }),
    annotations: RO,
  }),
  vm_list_windows: tool({
    name: 'vm_list_windows', title: 'List windows', capability: 'list_windows',
    description: 'Open windows: geometry (screen pixels), focus, visibility.',
    input: Type.Object({ lease_id: LeaseId, filter: Type.Optional(Type.String({ maxLength: 256 })) }, Strict),
    output: bound({ windows: Type.Array(WindowSchema) }),
    annotations: RO,
  }),
  vm_focus: tool({
    name: 'vm_focus', title: 'Focus window', capability: 'focus',
    description: 'Raise and focus a window (id or exact title).',
    input: Type.Object({ lease_id: LeaseId, window: Window }, Strict),
    output: bound({ window: Type.Object({ id: Type.String(), title: Type.String() }) }),
    annotations: ACT,
  }),
  vm_close: tool({
    name: 'vm_close', title: 'Close window', capability: 'close',
    description: 'Close a window (id or exact title) gracefully.',
    input: Type.Object({ lease_id: LeaseId, window: Window }, Strict),
    output: bound({ closed: Type.Boolean(), window_id: Type.String() }),
    annotations: DESTRUCTIVE,
  }),
  vm_launch: tool({
    name: 'vm_launch', title: 'Launch app', capability: 'launch',
    description: 'Start an app (name or path, args); reports its window once it appears.',
    input: Type.Object({
      lease_id: LeaseId,
      app: Type.String({ minLength: 1, maxLength: 1024 }),
      args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 64 })),
      wait_seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 20 })),
    }, Strict),
    output: bound({ pid: Type.Optional(Type.Integer()), window: Type.Optional(Type.Object({ id: Type.String(), title: Type.String() })) }),
    annotations: ACT,
  }),
  vm_click: tool({
    name: 'vm_click', title: 'Click', capability: 'click',
    description: 'Click x, y (latest-screenshot pixels, or coordinate_space "screen"), OCR text (index-th), or a mark.',
    input: Type.Object({
      lease_id: LeaseId, x: Type.Optional(Coord), y: Type.Optional(Coord),
      text: Type.Optional(TextQuery), index: Type.Optional(Type.Integer({ minimum: 0, maximum: 99 })),
      mark: Type.Optional(Type.Integer({ minimum: 1 })),
      button: Button,
      count: Type.Optional(Type.Integer({ minimum: 1, maximum: 3 })),
      modifiers: Type.Optional(Type.Array(StrEnum(['ctrl', 'shift', 'alt', 'super']))),
      coordinate_space: Space,
    }, Strict),
    output: bound({ screen_x: Type.Integer(), screen_y: Type.Integer(), text: Type.Optional(Type.String()) }),
    annotations: ACT,
  }),
  vm_type: tool({
    name: 'vm_type', title: 'Type text', capability: 'type',
    description: 'Type text into the focused window; "\\n" presses Return.',
    input: Type.Object({ lease_id: LeaseId, text: Type.String({ minLength: 1, maxLength: 20000 }) }, Strict),
    output: bound({ typed: Type.Integer() }),
    annotations: ACT,
  }),
  vm_key: tool({
    name: 'vm_key', title: 'Press keys', capability: 'key',
    description: 'Keys or chords, space-separated: "ctrl+shift+t Return F5".',
    input: Type.Object({ lease_id: LeaseId, keys: Type.String({ minLength: 1, maxLength: 256 }) }, Strict),
    output: bound({ keys: Type.String() }),
    annotations: ACT,
  }),
  vm_paste: tool({
    name: 'vm_paste', title: 'Paste text', capability: 'paste',
    description: 'Paste text via the clipboard (any Unicode), then restore it.',
    input: Type.Object({ lease_id: LeaseId, text: Type.String({ minLength: 1, maxLength: 200000 }) }, Strict),
    output: bound({ pasted: Type.Integer() }),
    annotations: ACT,
  }),
  vm_drag: tool({
    name: 'vm_drag', title: 'Drag', capability: 'drag',
    description: 'Press at from, move to to, release.',
    input: Type.Object({
      lease_id: LeaseId,
      from: Type.Object({ x: Coord, y: Coord }, Strict),
      to: Type.Object({ x: Coord, y: Coord }, Strict),
      button: Button, coordinate_space: Space,
    }, Strict),
    output: bound({}),
    annotations: ACT,
  }),
  vm_scroll: tool({
    name: 'vm_scroll', title: 'Scroll', capability: 'scroll',
    description: 'Scroll at (x, y) by amount notches.',
    input: Type.Object({
      lease_id: LeaseId, x: Coord, y: Coord,
      direction: StrEnum(['up', 'down', 'left', 'right']),
      amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
      coordinate_space: Space,
    }, Strict),
    output: bound({}),
    annotations: ACT,
  }),
  vm_batch: tool({
    name: 'vm_batch', title: 'Batch actions', bound: true,
    description: 'Up to 20 steps {action, ...vm_<action> args}; wait {seconds}, wait_for {vm_wait args}. Checked first; stops at a failure.',
    input: Type.Object({
      lease_id: LeaseId,
      actions: Type.Array(Type.Object({ action: StrEnum(BATCH_ACTIONS) }), { minItems: 1, maxItems: 20 }),
      screenshot: Type.Optional(Type.Boolean()),
    }, Strict),
    output: bound({
      completed: Type.Integer(),
      /** One per step run: {action, ok, result?, error?: {code, message}}. */
      results: Type.Array(Type.Unknown()),
      screenshot: Type.Optional(Type.Unknown()),
    }),
    annotations: ACT,
  }),
  vm_dispatch: tool({
    name: 'vm_dispatch', title: 'Adapter verb', capability: 'dispatch',
    description: 'Run an adapter verb (see vm_capabilities), args validated.',
    input: Type.Object({ lease_id: LeaseId, verb: Type.String({ maxLength: 64 }), args: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, Strict),
    output: bound({ verb: Type.String(), result: Type.Unknown() }),
    annotations: { ...ACT, destructiveHint: true },
  }),
  vm_put_file: tool({
    name: 'vm_put_file', title: 'Put file', capability: 'put_file',
    description: 'Write a file (absolute or under home): content (UTF-8) or content_base64.',
    input: Type.Object({
      lease_id: LeaseId, path: GuestPath,
      content: Type.Optional(Type.String()),
      content_base64: Type.Optional(Type.String()),
      mode: Type.Optional(Type.String({ pattern: '^0?[0-7]{3}$' })),
    }, Strict),
    output: bound({ path: Type.String(), size: Type.Integer(), sha256: Type.String() }),
    annotations: DESTRUCTIVE,
  }),
  vm_get_file: tool({
    name: 'vm_get_file', title: 'Get file', capability: 'get_file',
    description: 'Read a file (UTF-8 content, else content_base64); large ones in parts (offset, length).',
    input: Type.Object({
      lease_id: LeaseId, path: GuestPath, max_bytes: Type.Optional(Type.Integer({ minimum: 1 })),
      offset: Type.Optional(Type.Integer({ minimum: 0 })),
      length: Type.Optional(Type.Integer({ minimum: 1 })),
    }, Strict),
    output: bound({
      path: Type.String(), size: Type.Integer(), sha256: Type.String(),
      offset: Type.Integer(), length: Type.Integer(), eof: Type.Boolean(),
      content: Type.Optional(Type.String()), content_base64: Type.Optional(Type.String()),
    }),
    annotations: RO,
  }),
  vm_clone_repo: tool({
    name: 'vm_clone_repo', title: 'Clone repository', capability: 'clone_repo',
    description: 'Clone a git repo into the VM; credentials stay on the host.',
    input: Type.Object({
      lease_id: LeaseId, url: Type.String({ minLength: 1, maxLength: 2048 }),
      dest: Type.Optional(GuestPath),
      ref: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[^\\s~^:?*\\[\\\\]+$' })),
      depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000 })),
    }, Strict),
    output: bound({ dest: Type.String(), commit: Type.String(), ref: Type.Optional(Type.String()), files: Type.Integer() }),
    annotations: { ...DESTRUCTIVE, openWorldHint: true },
  }),
  vm_exec: tool({
    name: 'vm_exec', title: 'Run command', capability: 'exec',
    description: 'Run argv (command) or shell (sh; PowerShell on Windows), output capped; detach → {job}; JOB_LOST after restart.',
    input: Type.Object({
      lease_id: LeaseId,
      command: Type.Optional(Type.Array(Type.String({ maxLength: 65536 }), { minItems: 1, maxItems: 1024 })),
      shell: Type.Optional(Type.String({ minLength: 1, maxLength: 65536 })),
      cwd: Type.Optional(GuestPath),
      stdin: Type.Optional(Type.String({ maxLength: 1048576 })),
      timeout_seconds: Type.Optional(Type.Number({ minimum: 1, maximum: 3600 })),
      detach: Type.Optional(Type.Boolean()),
      job: Type.Optional(Type.String({ maxLength: 64 })),
    }, Strict),
    output: bound({
      exit_code: Type.Optional(Type.Union([Type.Integer(), Type.Null()])), stdout: Type.Optional(Type.String()), stderr: Type.Optional(Type.String()),
      timed_out: Type.Optional(Type.Boolean()), truncated: Type.Optional(Type.Boolean()),
      job: Type.Optional(Type.String()), running: Type.Optional(Type.Boolean()),
    }),
    annotations: DESTRUCTIVE,
  }),
} as const;

export type ToolName = keyof typeof TOOLS;
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];
export type ToolInput<N extends ToolName> = Static<(typeof TOOLS)[N]['input']>;
export type ToolOutput<N extends ToolName> = Static<(typeof TOOLS)[N]['output']>;

/** Tools that act on a lease's VM through its adapter. */
export const VM_TOOLS = TOOL_NAMES.filter((n) => TOOLS[n].capability !== undefined || (TOOLS[n] as ToolDefinition).bound);

export { StageSchema };
