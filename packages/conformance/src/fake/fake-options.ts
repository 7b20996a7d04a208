/** Options of the fake provider (`providers.fake`) and the fake adapter (`adapters.fake`, or a template's `adapter_options`). */
import { CAPABILITIES, Type, type Static } from '@vmhub/core';

export const FakeProviderOptionsSchema = Type.Object({
  /**
   * Directory holding the machines, their sandboxes and the ledger. Share it between processes
   * (two servers and a reaper) to make them see the same machines.
   * Default: env VMHUB_FAKE_DIR, else `<os.tmpdir()>/vmhub-fake`.
   */
  dir: Type.Optional(Type.String({ minLength: 1 })),
  /** Make status() report the backend as down (for health and availability tests). Default false. */
  down: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export type FakeProviderOptions = Static<typeof FakeProviderOptionsSchema>;

/** A fake template's `provider_options` (checked by core when templates load). */
export const FakeTemplateOptionsSchema = Type.Object({
  /** Milliseconds ready() takes (split between a boot and an agent stage). Default 100. */
  ready_delay_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
  /** Fail on purpose at this step. */
  fail_at: Type.Optional(Type.Union([Type.Literal('create'), Type.Literal('ready')])),
  /** availability() answers unavailable with this reason. */
  unavailable_reason: Type.Optional(Type.String({ minLength: 1 })),
  /** false: snapshotSupport() answers that this template has none. Default true. */
  snapshots: Type.Optional(Type.Boolean()),
  /** Snapshots claim memory (`memory: true`): the fake's whole machine state is its files. Default false. */
  snapshot_memory: Type.Optional(Type.Boolean()),
  /** false: restartSupport() answers that this template's machines cannot be restarted. Default true. */
  restarts: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

/** Capabilities the fake adapter can be told it lacks (every declared one but dispatch, whose verbs core serves). */
const MISSABLE = CAPABILITIES.filter((c) => c !== 'dispatch');

export const FakeAdapterOptionsSchema = Type.Object({
  /**
   * Capabilities this machine lacks although the adapter declares them, each with its reason —
   * like an x11 golden without an accessibility stack. probe() reports them (vm_capabilities lists
   * them as unavailable) and their tools answer CAPABILITY_UNAVAILABLE with the reason. Default {}.
   */
  missing: Type.Partial(Type.Object(Object.fromEntries(MISSABLE.map((c) => [c, Type.String({ minLength: 1, maxLength: 500 })])), { additionalProperties: false }), { default: {} }),
}, { additionalProperties: false });

export type FakeAdapterOptions = Static<typeof FakeAdapterOptionsSchema>;
