/**
 * Translates PVE's schema dialect into JSON Schema that ajv compiles, with three custom keywords
 * for what JSON Schema cannot say the PVE way: `pveType` (PVE's type check, lenient for form
 * input, strict for responses), `pvePattern` (Perl regexes, anchored) and `pveFormat` (named
 * formats and inline property-string formats). Errors come back keyed by parameter with PVE's
 * wording, ready for a 400 `errors` map.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { namedFormat } from './pve-formats.ts';
import type { PveSchema } from './schema-tree.ts';
import { parsePropertyString } from './property-string.ts';
import { perlRegex } from './perl-regex.ts';

export type Side = 'request' | 'response';


const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false, verbose: true });

type KwFn = ((schema: unknown, data: unknown) => boolean) & { errors?: Partial<ErrorObject>[] };

function keyword(name: string, check: (schema: any, data: unknown) => string | undefined): void {
  const fn: KwFn = (schema, data) => {
    const msg = check(schema, data);
    fn.errors = msg === undefined ? [] : [{ keyword: name, message: msg, params: {} }];
    return msg === undefined;
  };
  ajv.addKeyword({ keyword: name, errors: true, validate: fn as any });
}

keyword('pveType', (s: { t: string; side: Side }, v) => typeCheck(s.t, s.side, v));
keyword('pvePattern', (src: string, v) => (typeof v !== 'string' || perlRegex(src).test(v) ? undefined : 'value does not match the regex pattern'));
keyword('pveFormat', (fmt: string | Record<string, PveSchema>, v) => {
  if (typeof v !== 'string') return undefined;
  if (typeof fmt === 'string') {
    const rule = namedFormat(fmt);
    if (!rule) return undefined;
    const e = rule(v);
    return e === undefined ? undefined : `invalid format - ${e}`;
  }
  const e = parsePropertyString(fmt, v).error;
  return e === undefined ? undefined : `invalid format - ${e}`;
});

function typeCheck(t: string, side: Side, v: unknown): string | undefined {
  const got = (): string => (typeof v === 'object' ? (Array.isArray(v) ? 'ARRAY' : v === null ? 'null' : 'HASH') : `'${String(v)}'`);
  const fail = `type check ('${t}') failed - got ${got()}`;
  switch (t) {
    case 'string':
      return typeof v === 'string' || (side === 'request' && typeof v === 'number') ? undefined : fail;
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? undefined : fail;
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : fail;
    case 'boolean':
      return v === 0 || v === 1 || v === true || v === false ? undefined : fail;
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? undefined : fail;
    case 'array':
      return Array.isArray(v) ? undefined : fail;
    case 'null':
      return v === null || v === undefined ? undefined : fail;
    default:
      return undefined;
  }
}

/** `net[n]` in the schema stands for net0, net1, ... */
export function indexedKeyPattern(name: string): RegExp | undefined {
  return name.endsWith('[n]') ? new RegExp(`^${name.slice(0, -3)}\\d+$`) : undefined;
}

export function lookupProp(props: Record<string, PveSchema> | undefined, key: string): PveSchema | undefined {
  if (!props) return undefined;
  if (Object.hasOwn(props, key)) return props[key];
  const m = /^(.*?)(\d+)$/.exec(key);
  return m ? props[`${m[1]}[n]`] : undefined;
}

export function toJsonSchema(s: PveSchema, side: Side): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.type && s.type !== 'any') out.pveType = { t: s.type, side };
  if (s.minimum !== undefined) out.minimum = Number(s.minimum);
  if (s.maximum !== undefined) out.maximum = Number(s.maximum);
  if (s.minLength !== undefined) out.minLength = Number(s.minLength);
  if (s.maxLength !== undefined) out.maxLength = Number(s.maxLength);
  if (s.enum) out.enum = s.enum;
  if (s.pattern) out.pvePattern = s.pattern;
  if (s.format !== undefined) out.pveFormat = s.format;
  if (s.items) out.items = toJsonSchema(s.items, side);
  if (s.properties) Object.assign(out, objectSchema(s.properties, s.additionalProperties, side));
  return out;
}

function objectSchema(
  props: Record<string, PveSchema>,
  additional: PveSchema['additionalProperties'],
  side: Side,
): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const patternProperties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [k, p] of Object.entries(props)) {
    const pat = indexedKeyPattern(k);
    if (pat) patternProperties[pat.source] = toJsonSchema(p, side);
    else {
      properties[k] = toJsonSchema(p, side);
      if (!p.optional) required.push(k);
    }
  }
  const out: Record<string, unknown> = { properties, patternProperties, required };
  // PVE allows extra keys unless the schema says additionalProperties: 0.
  if (additional === 0 || additional === false) out.additionalProperties = false;
  else if (typeof additional === 'object') out.additionalProperties = toJsonSchema(additional, side);
  return out;
}

const compiled = new Map<string, ValidateFunction>();

function compile(key: string, build: () => Record<string, unknown>): ValidateFunction {
  let fn = compiled.get(key);
  if (!fn) {
    fn = ajv.compile(build());
    compiled.set(key, fn);
  }
  return fn;
}

const PRIORITY: Record<string, number> = { required: 0, additionalProperties: 1, pveType: 2 };

function pveMessage(e: ErrorObject): string {
  const p = e.params as Record<string, any>;
  switch (e.keyword) {
    case 'required':
      return 'property is missing and it is not optional';
    case 'additionalProperties':
      return 'property is not defined in schema and the schema does not allow additional properties';
    case 'minimum':
      return `value must have a minimum value of ${p.limit}`;
    case 'maximum':
      return `value must have a maximum value of ${p.limit}`;
    case 'maxLength':
      return `value may only be ${p.limit} characters long`;
    case 'minLength':
      return `value must be at least ${p.limit} characters long`;
    case 'enum':
      return `value '${String(e.data)}' does not have a value in the enumeration '${(p.allowedValues as string[]).join(', ')}'`;
    default:
      return e.message ?? 'invalid value';
  }
}

/** First error per parameter/location, PVE-worded; undefined when valid. */
function collect(fn: ValidateFunction, data: unknown, pointerToKey: (path: string, e: ErrorObject) => string): Record<string, string> | undefined {
  if (fn(data)) return undefined;
  const errs = [...(fn.errors ?? [])].sort((a, b) => (PRIORITY[a.keyword] ?? 9) - (PRIORITY[b.keyword] ?? 9));
  const out: Record<string, string> = {};
  for (const e of errs) {
    const key = pointerToKey(e.instancePath, e);
    if (!(key in out)) out[key] = pveMessage(e);
  }
  return out;
}

/** Validates already-coerced request parameters. */
export function validateParams(cacheKey: string, params: PveSchemaParams, values: Record<string, unknown>): Record<string, string> | undefined {
  const fn = compile(`req|${cacheKey}`, () => objectSchema(params.properties ?? {}, params.additionalProperties ?? 1, 'request'));
  return collect(fn, values, (p, e) => {
    const extra = (e.params as Record<string, string>).missingProperty ?? (e.params as Record<string, string>).additionalProperty;
    const first = p.split('/')[1];
    return first ? decodePointer(first) : (extra ?? '_');
  });
}

export interface PveSchemaParams {
  additionalProperties?: 0 | 1;
  properties?: Record<string, PveSchema>;
}

/** Validates a handler's `data` against the endpoint's `returns`; messages name the JSON pointer. */
export function validateReturns(cacheKey: string, returns: PveSchema | undefined, data: unknown): string[] | undefined {
  if (!returns) return undefined;
  if (returns.optional && (data === null || data === undefined)) return undefined;
  const fn = compile(`res|${cacheKey}`, () => toJsonSchema(returns, 'response'));
  const errs = collect(fn, data === undefined ? null : data, (p, e) => {
    const extra = (e.params as Record<string, string>).missingProperty ?? (e.params as Record<string, string>).additionalProperty;
    return extra ? `${p}/${extra}` : p || '/';
  });
  return errs ? Object.entries(errs).map(([k, v]) => `${k}: ${v}`) : undefined;
}

function decodePointer(s: string): string {
  return s.replaceAll('~1', '/').replaceAll('~0', '~');
}
