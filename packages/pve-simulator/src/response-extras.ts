/**
 * Keys a response carries that its `returns` schema does not declare. PVE allows them (most
 * return schemas leave additionalProperties open) and real nodes send some (file-read's
 * `bytes-read`), so they are not violations; listing them shows where the simulator adds fields
 * of its own.
 */
import type { PveSchema } from './schema-tree.ts';
import { lookupProp } from './pve-validate.ts';

export function undeclaredKeys(schema: PveSchema | undefined, data: unknown, at = ''): string[] {
  if (!schema || data === null || typeof data !== 'object') return [];
  if (Array.isArray(data)) return schema.items ? data.flatMap((d) => undeclaredKeys(schema.items, d, `${at}[]`)) : [];
  if (!schema.properties) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    const sub = lookupProp(schema.properties, k);
    if (!sub) out.push(`${at}/${k}`);
    else out.push(...undeclaredKeys(sub, v, `${at}/${k}`));
  }
  return out;
}
