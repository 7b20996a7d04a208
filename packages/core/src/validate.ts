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
  if (!fn(value)) throw new VmhubError('INVALID_REQUEST', `${what}: ${describeErrors(fn.errors ?? [])}`, { source });
  return value as T;
}

export function describeErrors(errors: ErrorObject[]): string {
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
