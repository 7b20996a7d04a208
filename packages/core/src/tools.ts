/**
 * The tool surface: every `vm_*` tool with its input and output schema, annotations and the
 * capability it needs. The operator picks which toolsets are listed (toolsets.ts); the router
 * gates each call on the lease's adapter. Descriptions are short on purpose: agents pay tokens
 * for every byte of tools/list (bench/RESULTS.md tracks the size).
 *
 * Every input schema is written in the subset that OpenAI's strict mode, Gemini's function
 * declarations and Anthropic's strict tool use all take (docs/agent-tools.md, "Schemas"): every
 * parameter has a description; objects are closed; no oneOf, patternProperties, exclusive bounds,
 * const or $ref; an exclusive choice is one property whose `anyOf` branches are closed objects
 * with only required fields (vm_exec `run`, vm_click `target`); optional fields inside such a
 * branch are nullable (null = not given). apps/server/test/provider-schemas.test.ts converts
 * every tool through each provider's rules.
 */
import { Type, type TSchema, type Static } from '@sinclair/typebox';
import type { Capability } from './capabilities.ts';
import { LEASE_STATES, LeaseInfoSchema, LeaseStatusSchema, SnapshotInfoSchema, StageSchema, TemplateInfoSchema, WindowSchema } from './shapes.ts';

const Strict = { additionalProperties: false } as const;
/** `{description}`: every parameter says what it is (tools/list is what agents read). */
const d = (description: string) => ({ description });
/** A string enum as plain JSON Schema `enum` (TypeBox's literal unions are 3× larger on the wire). */
const StrEnum = <const T extends string>(values: readonly T[], options: Record<string, unknown> = {}) => Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
/**
 * An exclusive choice: exactly one of `branches` (closed objects whose fields are all required).
 * `anyOf`, not `oneOf`: the branches cannot overlap (each forbids the others' fields), and anyOf
 * is what OpenAI's strict mode, Gemini and Anthropic all take.
 */
export const OneForm = <T extends TSchema[]>(branches: [...T], description: string) => Type.Unsafe<Static<T[number]>>({ description, anyOf: branches });
// Its bound (MAX_LEASE_ID) is checked by the router, not repeated in ~27 published schemas (tools/list's budget).
const LeaseId = Type.String({ description: 'Lease.' });
/** Longest lease_id taken (ids are 36-character UUIDs); longer is INVALID_REQUEST (router/index.ts). */
export const MAX_LEASE_ID = 64;
// No bounds here: a point off the screen (negative or past the edge) is refused by the off-screen
// check with a clearer message, and every byte of tools/list costs agents tokens.
const Coord = (axis: 'X' | 'Y') => Type.Number(d(`Screenshot ${axis.toLowerCase()}.`));
const Space = Type.Optional(StrEnum(['image', 'screen'], d('Image (default) or screen pixels.')));
const Button = Type.Optional(StrEnum(['left', 'right', 'middle'], d('Default left.')));
const GuestPath = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });
const Window = Type.String({ maxLength: 512, description: 'Window id or exact title.' });
const ExpiresAt = Type.String();
/** A screen-pixel rectangle. */
const Region = (description: string) => Type.Object({ x: Type.Number(), y: Type.Number(), width: Type.Integer({ minimum: 1 }), height: Type.Integer({ minimum: 1 }) }, { ...Strict, description: `${description} Screen pixels.` });
const Box = { x: Type.Number(), y: Type.Number(), width: Type.Number(), height: Type.Number() };
const TextQuery = (description: string) => Type.String({ minLength: 1, maxLength: 256, description });
const Point = (description: string) => Type.Object({ x: Coord('X'), y: Coord('Y') }, { ...Strict, description });

/** Any JSON value, each type its own branch (a type array is not portable: the Inspector's --strict). */
const ANY_JSON = ['object', 'array', 'string', 'number', 'boolean', 'null'].map((type) => ({ type }));
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
  /** What the router validates instead of `input`, when the handler checks the rest itself (vm_batch's steps). */
  check?: TSchema;
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

/** `schema` or null; inside a OneForm branch or a vm_batch step, null means "not given". */
const Nullable = (schema: unknown) => ({ anyOf: [JSON.parse(JSON.stringify(schema)), { type: 'null' }] });
/** A plain JSON copy of `schema` with its shape only: no descriptions, no bounds (a step is checked against its tool's schema). */
const SHAPE_ONLY = new Set(['description', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern']);
const shapeOf = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema), (k, v) => (SHAPE_ONLY.has(k) && typeof v !== 'object' ? undefined : v));

const Modifiers = Type.Optional(Type.Array(StrEnum(['ctrl', 'shift', 'alt', 'super']), d('Keys held during the click.')));
const TtlSeconds = Type.Optional(Type.Integer({ minimum: 60, maximum: 86400, description: 'Lifetime from now.' }));
const Owner = Type.Optional(Type.String({ maxLength: 128, description: 'Free-text owner label.' }));

/** An element's `ref` from the lease's latest vm_inspect (router/refs.ts). */
const ElementRef = (description: string) => Type.String({ pattern: '^e[0-9]{1,5}$', description });
const ClickTargets = [
  Type.Object({ x: Coord('X'), y: Coord('Y') }, Strict),
  Type.Object({ text: TextQuery('On-screen text (OCR), any case.') }, Strict),
  Type.Object({ mark: Type.Integer({ minimum: 1, description: 'From vm_screenshot {marks}.' }) }, Strict),
  Type.Object({ ref: ElementRef('From vm_inspect.') }, Strict),
];
/** A point in a window's client pixels (router/window-point.ts); vm_click's own, not a batch step's. */
const WindowPoint = Type.Object({
  window: Window,
  x: Type.Number({ description: 'Its client x.' }), y: Type.Number({ description: 'Its client y.' }),
}, Strict);
const clickInput = <T extends TSchema[]>(targets: [...T]) => Type.Object({
  lease_id: LeaseId,
  target: OneForm(targets, 'One of these forms.'),
  index: Type.Optional(Type.Integer({ minimum: 0, maximum: 99, description: 'With text: which match, 0 = first.' })),
  button: Button,
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, description: '2 = double click.' })),
  modifiers: Modifiers,
  coordinate_space: Space,
}, Strict);
/** vm_batch's click step: vm_click without the window form (a step's point is the screenshot's). */
const ClickStepInput = clickInput(ClickTargets);
const ClickInput = clickInput([ClickTargets[0]!, WindowPoint, ...ClickTargets.slice(1)]);
const TypeInput = Type.Object({ lease_id: LeaseId, text: Type.String({ minLength: 1, maxLength: 20000, description: 'Text to type; "\\n" presses Return.' }), ref: Type.Optional(ElementRef('Click this ref first.')) }, Strict);
/** vm_type's own input: vm_batch's type step without `cadence` (a step's time is bounded); human = router/cadence.ts. */
const TypeCadenceInput = Type.Object({ ...TypeInput.properties, cadence: Type.Optional(StrEnum(['fast', 'human'], d('human: paced per key, ≤300 chars.'))) }, Strict);
const KeyPress = { lease_id: LeaseId, keys: Type.String({ minLength: 1, maxLength: 256, description: 'E.g. "ctrl+shift+t Return F5".' }) };
/** vm_batch's key step is KeyPress: its `action` is the step's own (hold keys with vm_key calls, or vm_click {modifiers}). */
const KeyInput = Type.Object({ ...KeyPress, action: Type.Optional(StrEnum(['press', 'down', 'up'], d('down: hold until up (shift-click).'))) }, Strict);
const PasteInput = Type.Object({ lease_id: LeaseId, text: Type.String({ minLength: 1, maxLength: 200000, description: 'Text to paste (any Unicode).' }) }, Strict);
const DragInput = Type.Object({
  lease_id: LeaseId,
  from: Point('Press here.'),
  to: Point('Release here.'),
  button: Button, coordinate_space: Space,
}, Strict);
const ScrollInput = Type.Object({
  lease_id: LeaseId, x: Coord('X'), y: Coord('Y'),
  direction: StrEnum(['up', 'down', 'left', 'right'], d('Which way.')),
  amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Notches, default 3.' })),
  coordinate_space: Space,
}, Strict);
const WaitInput = Type.Object({
  lease_id: LeaseId,
  for: StrEnum(['settle', 'text', 'change'], d('Settled screen, text shown, or any change.')),
  text: Type.Optional(TextQuery('With for "text": the text to wait for.')),
  region: Type.Optional(Region('Watch only here.')),
  timeout_seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 300, description: 'Give up after this long.' })),
  settle_ms: Type.Optional(Type.Integer({ minimum: 50, maximum: 60000, description: 'Settled = unchanged this long.' })),
}, Strict);

/**
 * A vm_batch step for `action`: the tool's own fields (lease_id aside), optional ones nullable.
 * Descriptions and bounds are the tool's (vm_<action>), left out here: tools/list has a budget,
 * and batch.ts checks each step against its tool's own schema before any step runs.
 */
function stepOf(action: BatchAction, input: { properties: Record<string, TSchema>; required?: string[] }): TSchema {
  const required = (input.required ?? []).filter((k) => k !== 'lease_id');
  const properties: Record<string, unknown> = { action: { type: 'string', enum: [action] } };
  for (const [k, v] of Object.entries(input.properties)) if (k !== 'lease_id') properties[k] = required.includes(k) ? shapeOf(v) : Nullable(shapeOf(v));
  return Type.Unsafe({ type: 'object', properties, required: ['action', ...required], additionalProperties: false });
}
const WaitSeconds = Type.Object({ lease_id: LeaseId, seconds: Type.Number({ minimum: 0, maximum: 30, description: 'Pause this long.' }) }, Strict);
const BatchStep = OneForm([
  stepOf('click', ClickStepInput), stepOf('type', TypeInput), stepOf('key', Type.Object(KeyPress, Strict)), stepOf('paste', PasteInput),
  stepOf('drag', DragInput), stepOf('scroll', ScrollInput), stepOf('wait', WaitSeconds), stepOf('wait_for', WaitInput),
], 'action + its tool\'s fields (wait_for: vm_wait\'s); null = not given.');

const ExecInput = Type.Object({
  lease_id: LeaseId,
  run: OneForm([
    Type.Object({ command: Type.Array(Type.String({ maxLength: 65536 }), { minItems: 1, maxItems: 1024, description: 'argv, no shell.' }) }, Strict),
    Type.Object({ shell: Type.String({ minLength: 1, maxLength: 65536, description: 'Run by sh (PowerShell on Windows).' }) }, Strict),
    Type.Object({ job: Type.String({ maxLength: 64, description: 'Read a detached job.' }) }, Strict),
  ], 'One of these forms.'),
  cwd: Type.Optional(GuestPath('Working directory.')),
  stdin: Type.Optional(Type.String({ maxLength: 1048576, description: 'Fed to the command.' })),
  timeout_seconds: Type.Optional(Type.Number({ minimum: 1, maximum: 3600, description: 'Kill after this long.' })),
  detach: Type.Optional(Type.Boolean(d('Return a job at once; read it with run {job}.'))),
}, Strict);

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
    input: Type.Object({ lease_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A lease; or give template.' })), template: Type.Optional(Type.String({ maxLength: 128, description: 'Template id.' })) }, Strict),
    output: Type.Object({
      template: Type.String(), adapter: Type.String(), provider: Type.String(),
      capabilities: Type.Array(Type.String()),
      unavailable: Type.Array(Type.Object({ capability: Type.String(), reason: Type.String() })),
      verbs: Type.Array(Type.Object({ verb: Type.String() })),
      /** vm_snapshot and forks: whether memory comes back; absent when unavailable (`unavailable` says why). */
      snapshot: Type.Optional(Type.Object({ memory: Type.Boolean() })),
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
      /** Disk the live snapshots use (sum of their size_bytes) and the budget (snapshots.max_bytes). */
      snapshots: Type.Optional(Type.Object({ count: Type.Integer(), bytes: Type.Integer(), max_bytes: Type.Integer() })),
    }),
    annotations: { ...RO },
  }),
  vm_lease_create: tool({
    name: 'vm_lease_create', title: 'Create lease',
    description: 'Create a VM from a template; waits wait_seconds for ready; request_id dedupes.',
    // Exactly one of template and snapshot_id (router/args-together.ts says which is missing).
    // A fork of count > 1 makes leases under request_id, request_id#2 … #count (each idempotent);
    // the answer is the first lease, with lease_ids naming all of them in order.
    input: Type.Object({
      template: Type.Optional(Type.String({ maxLength: 128, description: 'Template id (vm_list_templates).' })),
      snapshot_id: Type.Optional(Type.String({ maxLength: 64, description: 'Fork this snapshot instead.' })),
      count: Type.Optional(Type.Integer({ minimum: 1, maximum: 8, description: 'Forks to make.' })),
      // A named volume at the guest home, kept across leases (one lease at a time); not with snapshot_id.
      workspace: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{0,62}$', description: 'Persistent home volume to attach.' })),
      request_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$', description: 'Idempotency key.' })),
      ttl_seconds: TtlSeconds,
      owner: Owner,
      // The same bounded wait as vm_lease_status: one-shot clients get a ready lease in one call.
      wait_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 25, description: 'Wait this long for ready.' })),
    }, Strict),
    output: Type.Object({ ...LeaseInfoSchema.properties, lease_ids: Type.Optional(Type.Array(Type.String())) }),
    annotations: { ...ACT, idempotentHint: true },
  }),
  vm_lease_status: tool({
    name: 'vm_lease_status', title: 'Lease status',
    description: 'Lease state and stages; waits wait_seconds for ready.',
    input: Type.Object({
      lease_id: LeaseId, wait_seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 25, description: 'Wait this long for ready.' })),
      stats: Type.Optional(Type.Boolean(d('Add resource use.'))),
    }, Strict),
    output: LeaseStatusSchema,
    annotations: { ...RO },
  }),
  /**
   * Reboot the lease's machine in place: graceful unless `hard` (then a reset after the provider's
   * timeout); the lease keeps its id, expiry and disk; status is `starting` with the readiness
   * stages again until ready. Waits like vm_lease_status {wait_seconds: 25}.
   */
  vm_lease_restart: tool({
    name: 'vm_lease_restart', title: 'Restart lease',
    description: 'Reboot; lease and disk kept. Waits ≤25 s.',
    input: Type.Object({ lease_id: LeaseId, hard: Type.Optional(Type.Boolean(d('Reset, no clean reboot.'))) }, Strict),
    output: LeaseInfoSchema,
    annotations: DESTRUCTIVE,
  }),
  /**
   * The end of a lease's log, scrubbed of credentials: `console` — the machine's own (a VM's
   * serial console, a container's stdout and stderr); `session` — vmhub's events of the lease.
   */
  vm_logs: tool({
    name: 'vm_logs', title: 'Logs',
    description: 'VM console/container log tail, or the lease\'s events.',
    input: Type.Object({
      lease_id: LeaseId,
      source: Type.Optional(StrEnum(['console', 'session'], d('Default console.'))),
      tail: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Default 100.' })),
    }, Strict),
    output: Type.Object({ source: Type.String(), lines: Type.Array(Type.String()), truncated: Type.Boolean() }),
    annotations: RO,
  }),
  vm_lease_renew: tool({
    name: 'vm_lease_renew', title: 'Renew lease',
    description: 'Push expiry to now + ttl_seconds (≤ max lifetime).',
    input: Type.Object({ lease_id: LeaseId, ttl_seconds: TtlSeconds }, Strict),
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
    input: Type.Object({ owner: Owner, status: Type.Optional(StrEnum([...LEASE_STATES, 'live'], d('Only this state.'))) }, Strict),
    output: Type.Object({ leases: Type.Array(LeaseInfoSchema), truncated: Type.Boolean() }),
    annotations: { ...RO, idempotentHint: true },
  }),
  /**
   * Snapshots of a lease's machine, one tool for four actions (tools/list has a budget):
   * create (lease_id; name) → the new one; restore (lease_id, snapshot_id: a snapshot of the same
   * template) → the lease keeps its id, expiry and session, its machine goes back; list (lease_id:
   * only that lease's) → the caller's live snapshots, newest first; delete (snapshot_id) → the one
   * deleted. Every answer is `{snapshots}`. Another principal's snapshot is NOT_FOUND.
   */
  vm_snapshot: tool({
    name: 'vm_snapshot', title: 'Snapshots',
    description: 'Save a VM (create), roll it back (restore), list or delete snapshots.',
    input: Type.Object({
      action: StrEnum(['create', 'restore', 'list', 'delete'], d('create/restore: lease_id; restore/delete: snapshot_id.')),
      lease_id: Type.Optional(LeaseId),
      snapshot_id: Type.Optional(Type.String({ maxLength: 64, description: 'Snapshot id.' })),
      name: Type.Optional(Type.String({ maxLength: 128, description: 'create: a label.' })),
    }, Strict),
    output: Type.Object({ snapshots: Type.Array(SnapshotInfoSchema) }),
    annotations: DESTRUCTIVE,
  }),
  vm_screenshot: tool({
    name: 'vm_screenshot', title: 'Screenshot', capability: 'screenshot',
    description: 'See the screen; input tools use its pixels. region + scale>1 zooms.',
    input: Type.Object({
      lease_id: LeaseId,
      format: Type.Optional(StrEnum(['png', 'jpeg', 'webp'], d('Image format.'))),
      max_width: Type.Optional(Type.Integer({ minimum: 64, maximum: 4096, description: 'Shrink to fit.' })),
      max_height: Type.Optional(Type.Integer({ minimum: 64, maximum: 4096, description: 'Shrink to fit.' })),
      region: Type.Optional(Region('Only this part.')),
      // minimum, not exclusiveMinimum: Gemini's schema subset has no exclusive bounds.
      scale: Type.Optional(Type.Number({ minimum: 0.01, maximum: 8, description: 'Image pixels per screen pixel.' })),
      marks: Type.Optional(Type.Boolean(d('Number the text boxes (vm_click {mark}).'))),
      /**
       * Only the box of pixels changed since this lease's previous full-screen screenshot (the whole
       * screen the first time): origin and width/scale, height/scale say where it is; nothing
       * changed → bytes 0 and no image (the previous image's mapping stays).
       */
      changed_only: Type.Optional(Type.Boolean(d('Only what changed since the last one.'))),
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
    input: WaitInput,
    output: bound({
      satisfied: Type.Boolean(), waited_ms: Type.Integer(),
      match: Type.Optional(Type.Unsafe({ type: 'object', description: 'For "text": the match, as vm_find_text\'s.' })),
    }),
    annotations: RO,
  }),
  vm_find_text: tool({
    name: 'vm_find_text', title: 'Find text', capability: 'screenshot',
    description: 'Find text on screen (OCR); boxes in latest-screenshot pixels.',
    input: Type.Object({
      lease_id: LeaseId, text: TextQuery('Text to find, case-insensitive.'), region: Type.Optional(Region('Search only here.')),
      min_confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Drop weaker matches.' })),
    }, Strict),
    output: bound({
      matches: Type.Array(Type.Object({ text: Type.String(), confidence: Type.Number(), ...Box })),
    }),
    annotations: RO,
  }),
  vm_inspect: tool({
    name: 'vm_inspect', title: 'Inspect UI', capability: 'inspect',
    description: 'UI tree of the focused window; refs for vm_click/vm_type.',
    input: Type.Object({
      lease_id: LeaseId, max_depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'Levels to descend.' })),
      scope: Type.Optional(StrEnum(['window', 'desktop'], d('Default window.'))),
      max_nodes: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, description: 'Default 500.' })),
      timeout_seconds: Type.Optional(Type.Number({ minimum: 0.5, maximum: 30, description: 'Default 3.' })),
    }, Strict),
    output: bound({
      source: Type.String(), scope: Type.String(), nodes: Type.Integer(),
      truncated: Type.Optional(Type.Boolean()), reason: Type.Optional(Type.String({ description: 'The limit that cut it: nodes, time or depth.' })),
      tree: Type.Unsafe({ type: 'object', description: 'Root: {role, name?, text?, ref?, x?, y?, width?, height?, states?, children?}.' }),
    }),
    annotations: RO,
  }),
  vm_list_windows: tool({
    name: 'vm_list_windows', title: 'List windows', capability: 'list_windows',
    description: 'Open windows: geometry (screen pixels), focus, visibility.',
    input: Type.Object({ lease_id: LeaseId, filter: Type.Optional(Type.String({ maxLength: 256, description: 'Only titles containing this.' })) }, Strict),
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
      app: Type.String({ minLength: 1, maxLength: 1024, description: 'App name or path.' }),
      args: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 64, description: 'Its arguments.' })),
      wait_seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 20, description: 'Wait this long for its window.' })),
    }, Strict),
    output: bound({ pid: Type.Optional(Type.Integer()), window: Type.Optional(Type.Object({ id: Type.String(), title: Type.String() })) }),
    annotations: ACT,
  }),
  vm_click: tool({
    name: 'vm_click', title: 'Click', capability: 'click',
    description: 'Click a point (screenshot or window pixels), OCR text, a mark or a ref.',
    input: ClickInput,
    output: bound({ screen_x: Type.Integer(), screen_y: Type.Integer(), text: Type.Optional(Type.String()) }),
    annotations: ACT,
  }),
  vm_type: tool({
    name: 'vm_type', title: 'Type text', capability: 'type',
    description: 'Type text into the focused window.',
    input: TypeCadenceInput,
    output: bound({ typed: Type.Integer() }),
    annotations: ACT,
  }),
  vm_key: tool({
    name: 'vm_key', title: 'Press keys', capability: 'key',
    description: 'Press keys or chords, space-separated, or hold them (action).',
    input: KeyInput,
    output: bound({ keys: Type.String() }),
    annotations: ACT,
  }),
  vm_paste: tool({
    name: 'vm_paste', title: 'Paste text', capability: 'paste',
    description: 'Paste text via the clipboard, then restore it.',
    input: PasteInput,
    output: bound({ pasted: Type.Integer() }),
    annotations: ACT,
  }),
  vm_get_clipboard: tool({
    name: 'vm_get_clipboard', title: 'Read clipboard', capability: 'get_clipboard',
    description: 'The guest clipboard as text.',
    input: Type.Object({ lease_id: LeaseId }, Strict),
    output: bound({ text: Type.String(), truncated: Type.Optional(Type.Boolean()) }),
    annotations: RO,
  }),
  vm_drag: tool({
    name: 'vm_drag', title: 'Drag', capability: 'drag',
    description: 'Press at from, move to to, release.',
    input: DragInput,
    output: bound({}),
    annotations: ACT,
  }),
  vm_scroll: tool({
    name: 'vm_scroll', title: 'Scroll', capability: 'scroll',
    description: 'Scroll at (x, y) by amount notches.',
    input: ScrollInput,
    output: bound({}),
    annotations: ACT,
  }),
  vm_batch: tool({
    name: 'vm_batch', title: 'Batch actions', bound: true,
    description: 'Up to 20 input steps; all checked first; stops at a failure.',
    input: Type.Object({
      lease_id: LeaseId,
      actions: Type.Array(BatchStep, { minItems: 1, maxItems: 20, description: 'Steps, in order.' }),
      screenshot: Type.Optional(Type.Boolean(d('Screenshot after the steps.'))),
    }, Strict),
    // Checked step by step by batch.ts against each tool's own schema (its messages name the step).
    check: Type.Object({
      lease_id: LeaseId,
      actions: Type.Array(Type.Object({ action: StrEnum(BATCH_ACTIONS) }), { minItems: 1, maxItems: 20 }),
      screenshot: Type.Optional(Type.Boolean()),
    }, Strict),
    output: bound({
      completed: Type.Integer(),
      results: Type.Array(Type.Object({
        action: Type.String(), ok: Type.Boolean(),
        result: Type.Optional(Type.Unsafe({ type: 'object', description: 'The step tool\'s output.' })),
        error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
      }, d('One per step run.'))),
      screenshot: Type.Optional(Type.Unsafe({ type: 'object', description: 'vm_screenshot\'s output, or {error}.' })),
    }),
    annotations: ACT,
  }),
  vm_dispatch: tool({
    name: 'vm_dispatch', title: 'Adapter verb', capability: 'dispatch',
    description: 'Run an adapter verb (see vm_capabilities), args validated.',
    input: Type.Object({
      lease_id: LeaseId,
      verb: Type.String({ maxLength: 64, description: 'Verb name.' }),
      // JSON text, not an object: an open object is in no provider's strict subset (an object is still taken).
      args: Type.Optional(Type.String({ maxLength: 1048576, description: 'Its args as JSON object text.' })),
    }, Strict),
    output: bound({ verb: Type.String(), result: Type.Unsafe({ anyOf: ANY_JSON, description: 'The verb\'s answer.' }) }),
    annotations: { ...ACT, destructiveHint: true },
  }),
  vm_put_file: tool({
    name: 'vm_put_file', title: 'Put file', capability: 'put_file',
    description: 'Write a file: content or content_base64.',
    input: Type.Object({
      lease_id: LeaseId, path: GuestPath('Absolute, or relative to home.'),
      content: Type.Optional(Type.String(d('UTF-8 text; or content_base64.'))),
      content_base64: Type.Optional(Type.String(d('Bytes, base64.'))),
      mode: Type.Optional(Type.String({ pattern: '^0?[0-7]{3}$', description: 'Octal, e.g. "755".' })),
    }, Strict),
    output: bound({ path: Type.String(), size: Type.Integer(), sha256: Type.String() }),
    annotations: DESTRUCTIVE,
  }),
  vm_get_file: tool({
    name: 'vm_get_file', title: 'Get file', capability: 'get_file',
    description: 'Read a file (content, else content_base64), in parts if large.',
    input: Type.Object({
      lease_id: LeaseId, path: GuestPath('Absolute, or relative to home.'),
      max_bytes: Type.Optional(Type.Integer({ minimum: 1, description: 'Refuse larger files.' })),
      offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Start byte.' })),
      length: Type.Optional(Type.Integer({ minimum: 1, description: 'Bytes to read.' })),
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
      lease_id: LeaseId, url: Type.String({ minLength: 1, maxLength: 2048, description: 'https, ssh or git URL.' }),
      dest: Type.Optional(GuestPath('Folder; default: repo name.')),
      ref: Type.Optional(Type.String({ minLength: 1, maxLength: 256, pattern: '^[^\\s~^:?*\\[\\\\]+$', description: 'Branch, tag or commit.' })),
      depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, description: 'Shallow clone depth.' })),
      push: Type.Optional(Type.Boolean({ description: 'GitHub: a token for this repo only, in the VM.' })),
    }, Strict),
    output: bound({ dest: Type.String(), commit: Type.String(), ref: Type.Optional(Type.String()), files: Type.Integer() }),
    annotations: { ...DESTRUCTIVE, openWorldHint: true },
  }),
  vm_exec: tool({
    name: 'vm_exec', title: 'Run command', capability: 'exec',
    description: 'Run a command; output capped; detach → {job}; JOB_LOST after restart.',
    input: ExecInput,
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
/** The arguments as published (tools/list). */
export type ToolArgs<N extends ToolName> = Static<(typeof TOOLS)[N]['input']>;
/**
 * The input a handler gets: the published arguments, with an exclusive choice spread back into
 * the object (vm_exec's run, vm_click's target) and vm_dispatch's args parsed (router/forms.ts).
 */
export type ToolInput<N extends ToolName> = N extends keyof HandlerForms ? HandlerForms[N] : ToolArgs<N>;
interface HandlerForms {
  vm_exec: Omit<ToolArgs<'vm_exec'>, 'run'> & { command?: string[]; shell?: string; job?: string };
  vm_click: Omit<ToolArgs<'vm_click'>, 'target'> & { x?: number; y?: number; window?: string; text?: string; mark?: number; ref?: string };
  vm_dispatch: Omit<ToolArgs<'vm_dispatch'>, 'args'> & { args?: Record<string, unknown> };
}
export type ToolOutput<N extends ToolName> = Static<(typeof TOOLS)[N]['output']>;

/** Tools that act on a lease's VM through its adapter. */
export const VM_TOOLS = TOOL_NAMES.filter((n) => TOOLS[n].capability !== undefined || (TOOLS[n] as ToolDefinition).bound);

export { StageSchema };
