/**
 * PVE "property strings" (`[model=]virtio,bridge=vmbr0,firewall=1`): the inline-object form of
 * `format` in the schema. Parsed the way PVE::JSONSchema::parse_property_string does, enough to
 * validate keys, enums, numbers and booleans and to read values back.
 */
import type { PveSchema } from './schema-tree.ts';
import { namedFormat } from './pve-formats.ts';
import { perlRegex } from './perl-regex.ts';

export interface ParsedPropertyString {
  values: Record<string, string>;
  error?: string;
}

export function parsePropertyString(fmt: Record<string, PveSchema>, text: string): ParsedPropertyString {
  const values: Record<string, string> = {};
  const defaultKey = Object.entries(fmt).find(([, s]) => s.default_key)?.[0];
  const fail = (key: string, msg: string): ParsedPropertyString => ({ values, error: `format error\n${key}: ${msg}` });
  for (const part of text.split(',')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    let key = eq < 0 ? defaultKey : part.slice(0, eq);
    const value = eq < 0 ? part : part.slice(eq + 1);
    if (key === undefined) return { values, error: `value without key, but schema does not define a default key` };
    const entry = fmt[key] as (PveSchema & { keyAlias?: string }) | undefined;
    if (entry?.keyAlias) {
      // `virtio=<mac>` means model=virtio, macaddr=<mac>
      if (entry.keyAlias in values) return { values, error: `duplicate key in comma-separated list property: ${entry.keyAlias}` };
      values[entry.keyAlias] = key;
    }
    if (entry?.alias) key = entry.alias;
    const s = fmt[key];
    if (!s) return fail(key, 'property is not defined in schema and the schema does not allow additional properties');
    if (key in values) return { values, error: `duplicate key in comma-separated list property: ${key}` };
    const e = checkValue(s, value);
    if (e) return fail(key, e);
    values[key] = value;
  }
  for (const [k, s] of Object.entries(fmt)) {
    if (!s.optional && !s.alias && s.default === undefined && !(k in values)) return fail(k, 'property is missing and it is not optional');
  }
  return { values };
}

function checkValue(s: PveSchema, v: string): string | undefined {
  if (s.type === 'integer' && !/^-?\d+$/.test(v)) return `type check ('integer') failed - got '${v}'`;
  if (s.type === 'number' && !/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(v)) return `type check ('number') failed - got '${v}'`;
  if (s.type === 'boolean' && !/^(0|1|true|false|yes|no|on|off)$/i.test(v)) return `type check ('boolean') failed - got '${v}'`;
  if ((s.type === 'integer' || s.type === 'number') && s.minimum !== undefined && Number(v) < Number(s.minimum))
    return `value must have a minimum value of ${s.minimum}`;
  if ((s.type === 'integer' || s.type === 'number') && s.maximum !== undefined && Number(v) > Number(s.maximum))
    return `value must have a maximum value of ${s.maximum}`;
  if (s.enum && !s.enum.includes(v)) return `value '${v}' does not have a value in the enumeration '${s.enum.join(', ')}'`;
  if (s.maxLength !== undefined && v.length > Number(s.maxLength)) return `value may only be ${s.maxLength} characters long`;
  if (s.pattern && !perlRegex(s.pattern).test(v)) return 'value does not match the regex pattern';
  if (typeof s.format === 'string') {
    const e = namedFormat(s.format)?.(v);
    if (e) return `invalid format - ${e}`;
  }
  return undefined;
}
