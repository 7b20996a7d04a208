/**
 * Ajv, configured once. Schemas are compiled once and cached by identity, so a hot tool call
 * never compiles. Errors become INVALID_REQUEST naming the field.
 */
import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { VmhubError } from './errors.ts';

export const ajv = new Ajv({ allErrors: false, useDefaults: true, coerceTypes: false, strict: false });

const cache = new WeakMap<object, ValidateFunction>();

export function compile(schema: TSchema): ValidateFunction {
  let fn = cache.get(schema);
  if (!fn) {
    fn = ajv.compile(schema);
    cache.set(schema, fn);
  }
  return fn;
}

/** Validate (applying defaults in place) or throw INVALID_REQUEST. */
export function assertValid<T>(schema: TSchema, value: unknown, what: string, source?: string): T {
  const fn = compile(schema);
  if (!fn(value)) throw new VmhubError('INVALID_REQUEST', `${what}: ${describeErrors(fn.errors ?? [], schema, value)}`, { source });
  return value as T;
}

export function describeErrors(errors: ErrorObject[], schema?: unknown, value?: unknown): string {
  const choice = errors.find((e) => e.keyword === 'anyOf');
  if (choice && schema !== undefined) return describeChoice(choice, errors, schema, value);
  return errors
    .slice(0, 3)
    .map((e) => {
      const where = e.instancePath ? e.instancePath.slice(1).replaceAll('/', '.') : '(root)';
      if (e.keyword === 'additionalProperties') return `${where === '(root)' ? '' : where + ': '}unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
      if (e.keyword === 'required') return `missing field "${(e.params as { missingProperty: string }).missingProperty}"`;
      if (e.keyword === 'maxLength') return `${where} is too long (max ${(e.params as { limit: number }).limit} characters)`;
      return `${where} ${e.message ?? 'is invalid'}`;
    })
    .join('; ');
}

const at = (root: unknown, pointer: string): unknown => pointer.split('/').slice(1).reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[decodeURIComponent(key).replaceAll('~1', '/').replaceAll('~0', '~')], root);

/**
 * An exclusive choice (`anyOf` of closed objects) no branch of which matched: names the forms,
 * then what is wrong with the form the value looks most like (the branch sharing most fields).
 */
function describeChoice(choice: ErrorObject, errors: ErrorObject[], schema: unknown, value: unknown): string {
  const where = choice.instancePath ? choice.instancePath.slice(1).replaceAll('/', '.') : '(root)';
  const branches = (at(schema, choice.schemaPath.slice(1)) ?? []) as { properties?: Record<string, unknown>; required?: string[] }[];
  const forms = branches.map((b) => `{${(b.required ?? Object.keys(b.properties ?? {})).join(', ')}}`);
  const given = at(value, choice.instancePath);
  const keys = typeof given === 'object' && given !== null ? Object.keys(given) : [];
  const scores = branches.map((b) => keys.filter((k) => Object.hasOwn(b.properties ?? {}, k)).length);
  const best = scores.indexOf(Math.max(...scores));
  const inBest = errors.filter((e) => e !== choice && e.schemaPath.startsWith(`${choice.schemaPath}/${best}/`));
  const why = keys.length === 0 ? 'it is empty' : scores[best] === 0 ? `it has ${keys.join(', ')}` : describeErrors(inBest);
  return `${where} must be exactly one of ${forms.join(', ')} (${why})`;
}
