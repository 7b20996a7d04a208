// A small check of call arguments against the recorded input schema (types, enums, required,
// no unknown keys — pydantic call validation refuses them whatever the schema says), standing for pydantic.
// Messages imitate pydantic's first line per field; they are not byte-identical.
import type { RecordedTool } from './schemas.ts';

type S = { type?: string; enum?: unknown[]; anyOf?: S[]; items?: S; default?: unknown };

function matches(s: S, v: unknown): boolean {
  if (s.anyOf) return s.anyOf.some((x) => matches(x, v));
  if (s.enum && !s.enum.includes(v)) return false;
  switch (s.type) {
    case 'string': return typeof v === 'string';
    case 'integer': return Number.isInteger(v);
    case 'number': return typeof v === 'number';
    case 'boolean': return typeof v === 'boolean';
    case 'null': return v === null;
    case 'array': return Array.isArray(v) && (!s.items || v.every((x) => matches(s.items!, x)));
    default: return true;
  }
}

export function validateArgs(tool: RecordedTool, args: Record<string, unknown>): string | undefined {
  const props = tool.inputSchema.properties as Record<string, S>;
  const errors: string[] = [];
  for (const r of tool.inputSchema.required ?? []) if (!(r in args)) errors.push(`${r}\n  Missing required argument`);
  for (const [k, v] of Object.entries(args)) {
    const s = props[k];
    if (!s) { errors.push(`${k}\n  Unexpected keyword argument`); continue; } // pydantic call validation rejects extras in both versions
    if (!matches(s, v)) errors.push(`${k}\n  Input should be ${s.enum ? s.enum.map((e) => JSON.stringify(e).replace(/"/g, "'")).join(', ').replace(/, ([^,]*)$/, ' or $1') : `a valid ${s.type ?? s.anyOf?.map((x) => x.type).join(' or ')}`}`);
  }
  if (!errors.length) return undefined;
  return `${errors.length} validation error${errors.length > 1 ? 's' : ''} for call[${tool.name}]\n${errors.join('\n')}`;
}
