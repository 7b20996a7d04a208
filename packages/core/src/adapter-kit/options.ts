/**
 * The options merge: an adapter instance holds its validated options; a lease whose template sets
 * `adapter_options` runs with the instance's options refined by those, validated again against
 * the adapter's schema (defaults filled, unknown keys refused). The server already makes a
 * per-template instance; the merge matters when the instance was made before the template
 * existed (the conformance kit does that). Once per session, at open().
 */
import type { TSchema } from '@sinclair/typebox';
import { assertValid } from '../validate.ts';

/** Validate raw options against `schema` (defaults filled); INVALID_REQUEST naming `source`. */
export function resolveOptions<O>(schema: TSchema, raw: unknown, source: string): O {
  return assertValid<O>(schema, structuredClone(raw ?? {}), `[vmhub] [${source}] options`, source);
}

/** The instance's options refined by a template's adapter_options; the instance's own object when there are none. */
export function mergeOptions<O extends object>(schema: TSchema | undefined, instance: O, overrides: Record<string, unknown> | undefined, source: string): O {
  if (!schema || !overrides || Object.keys(overrides).length === 0) return instance;
  return resolveOptions<O>(schema, { ...instance, ...overrides }, source);
}
