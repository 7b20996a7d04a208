/**
 * A tool's input schema as three model providers take it, modelled on their published rules, so a
 * test can show that no vmhub tool is dropped, refused or loses a field on the way to a model:
 *
 * - OpenAI strict mode as @openai/agents converts an MCP tool (agents-core src/mcp.ts
 *   mcpToFunctionTool → utils/strictToolSchema.ts): oneOf, allOf, not, patternProperties and the
 *   like, open objects, anyOf beside other keywords and anyOf branches with optional non-null
 *   fields make it fall back to non-strict; otherwise every object is closed and every field
 *   required, optional ones as anyOf [x, null]. The result must meet OpenAI's Structured Outputs
 *   rules: root an object without anyOf, every object closed with every field required, every node
 *   typed or an anyOf, only the keywords OpenAI lists.
 * - Gemini function declarations (`parameters`, an OpenAPI 3.0 subset) as @google/genai's
 *   processJsonSchema builds them: anyOf [x, {type: null}] and type [x, "null"] become nullable,
 *   additionalProperties is dropped, and only the fields of its Schema type may remain (no oneOf,
 *   patternProperties, exclusive bounds, const or $ref); type beside anyOf, a null-only type,
 *   non-string enums and an object without properties (below the root) are refused.
 * - Anthropic: input_schema an object at the root; strict tool use as the Anthropic SDK's
 *   transformJSONSchema makes it: every node typed or a union (oneOf becomes anyOf), objects
 *   closed; constraints it does not take (minimum, maxLength, ...) move into the description.
 *
 * Each returns the converted schema, or throws with the reason (what the client would log before
 * dropping strict mode, or the API would answer).
 */
type Json = Record<string, any>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

const OPENAI_REFUSED = ['oneOf', 'allOf', 'not', 'if', 'then', 'else', 'patternProperties', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'dependentRequired', 'dependentSchemas', 'dependencies', 'prefixItems', 'contains', 'additionalItems'];
const OPENAI_KEYWORDS = new Set(['type', 'description', 'title', 'properties', 'required', 'additionalProperties', 'items', 'anyOf', 'enum', 'const', '$defs', '$ref', 'pattern', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems']);
const METADATA = new Set(['description', 'title', 'default', 'examples', '$comment', 'deprecated']);

function nullable(s: unknown): boolean {
  if (!isObj(s)) return true;
  if (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'))) return !Array.isArray(s.enum) || s.enum.includes(null);
  if (Array.isArray(s.anyOf)) return s.anyOf.some(nullable);
  return false;
}
/** Fields optional (not required) and not nullable, anywhere below `s`: a branch with one cannot be normalised. */
function hasOptionalNonNull(s: unknown): boolean {
  if (!isObj(s)) return false;
  if (Array.isArray(s.anyOf)) return s.anyOf.some(hasOptionalNonNull);
  const req = new Set<string>(s.required ?? []);
  for (const [k, v] of Object.entries<unknown>(s.properties ?? {})) if ((!req.has(k) && !nullable(v)) || hasOptionalNonNull(v)) return true;
  return hasOptionalNonNull(s.items);
}

function openaiCheck(s: unknown, path: string): void {
  if (!isObj(s)) throw new Error(`${path}: not a schema object`);
  for (const k of OPENAI_REFUSED) if (k in s) throw new Error(`${path}: unsupported keyword ${k}`);
  if (Array.isArray(s.anyOf)) {
    const sibling = Object.keys(s).find((k) => k !== 'anyOf' && !METADATA.has(k));
    if (sibling) throw new Error(`${path}: anyOf beside ${sibling}`);
    if (s.anyOf.some(hasOptionalNonNull)) throw new Error(`${path}: an anyOf branch has optional non-null fields`);
    s.anyOf.forEach((b: unknown, i: number) => openaiCheck(b, `${path}.anyOf[${i}]`));
    return;
  }
  if (s.type === 'object' && s.additionalProperties !== false && (!isObj(s.properties) || Object.keys(s.properties).length === 0 || 'additionalProperties' in s)) throw new Error(`${path}: open object`);
  for (const [k, v] of Object.entries<unknown>(s.properties ?? {})) openaiCheck(v, `${path}.${k}`);
  if (s.items !== undefined) openaiCheck(s.items, `${path}[]`);
}

function openaiStrictify(s: Json): Json {
  if (Array.isArray(s.anyOf)) return { ...s, anyOf: s.anyOf.map(openaiStrictify) };
  const out = { ...s };
  if (isObj(s.properties)) {
    const req = new Set<string>(s.required ?? []);
    out.properties = Object.fromEntries(Object.entries<Json>(s.properties).map(([k, v]) => {
      const strict = openaiStrictify(v);
      return [k, req.has(k) || nullable(v) ? strict : { ...(v.description ? { description: v.description } : {}), anyOf: [strict, { type: 'null' }] }];
    }));
    out.required = Object.keys(s.properties);
    out.additionalProperties = false;
  }
  if (isObj(s.items)) out.items = openaiStrictify(s.items);
  return out;
}

/** Structured Outputs' own rules on the converted schema. */
function openaiRules(s: Json, path: string, root = false): void {
  for (const k of Object.keys(s)) if (!OPENAI_KEYWORDS.has(k)) throw new Error(`${path}: ${k} is not permitted`);
  if (root && (s.type !== 'object' || 'anyOf' in s)) throw new Error('root must be an object, not anyOf');
  if (Array.isArray(s.anyOf)) { s.anyOf.forEach((b: Json, i: number) => openaiRules(b, `${path}.anyOf[${i}]`)); return; }
  if (s.type === undefined) throw new Error(`${path}: no type`);
  if (s.type === 'object') {
    if (s.additionalProperties !== false) throw new Error(`${path}: additionalProperties must be false`);
    const keys = Object.keys(s.properties ?? {});
    if (keys.some((k) => !s.required?.includes(k))) throw new Error(`${path}: every field must be required`);
    for (const [k, v] of Object.entries<Json>(s.properties ?? {})) openaiRules(v, `${path}.${k}`);
  }
  if (isObj(s.items)) openaiRules(s.items, `${path}[]`);
}

export function openaiStrict(inputSchema: Json): Json {
  const schema = { ...clone(inputSchema), type: inputSchema.type ?? 'object', properties: inputSchema.properties ?? {}, required: inputSchema.required ?? [] };
  openaiCheck(schema, '(root)');
  const strict = openaiStrictify(schema);
  openaiRules(strict, '(root)', true);
  return strict;
}

const GEMINI_FIELDS = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'propertyOrdering', 'items', 'anyOf', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'default', 'example', 'minProperties', 'maxProperties']);

function geminiSchema(s: Json, path: string, root = false): Json {
  if (s.type !== undefined && s.anyOf !== undefined) throw new Error(`${path}: type and anyOf cannot be both populated`);
  const out: Json = {};
  let src = s;
  if (Array.isArray(s.anyOf) && s.anyOf.length === 2 && s.anyOf.some((b: Json) => b.type === 'null')) {
    out.nullable = true;
    src = s.anyOf.find((b: Json) => b.type !== 'null');
  }
  for (const [k, v] of Object.entries<any>(src)) {
    if (k === 'additionalProperties') continue;
    if (!GEMINI_FIELDS.has(k)) throw new Error(`${path}: ${k} is not in Gemini's Schema`);
    if (k === 'type') {
      const types = (Array.isArray(v) ? v : [v]).filter((t: string) => t !== 'null');
      if (types.length !== 1) throw new Error(`${path}: type ${JSON.stringify(v)}`);
      if (Array.isArray(v)) out.nullable = true;
      out.type = types[0].toUpperCase();
    } else if (k === 'enum') {
      if (v.some((e: unknown) => typeof e !== 'string')) throw new Error(`${path}: enum values must be strings`);
      out.enum = v;
    } else if (k === 'properties') out.properties = Object.fromEntries(Object.entries<Json>(v).map(([p, ps]) => [p, geminiSchema(ps, `${path}.${p}`)]));
    else if (k === 'items') out.items = geminiSchema(v, `${path}[]`);
    else if (k === 'anyOf') out.anyOf = v.filter((b: Json) => b.type !== 'null').map((b: Json, i: number) => geminiSchema(b, `${path}.anyOf[${i}]`));
    else out[k] = v;
  }
  if (!root && out.type === 'OBJECT' && Object.keys(out.properties ?? {}).length === 0) throw new Error(`${path}: properties should be non-empty for OBJECT type`);
  return out;
}

/** Gemini's `parameters` for the tool, or undefined for a tool without parameters. */
export function gemini(inputSchema: Json): Json | undefined {
  if (Object.keys(inputSchema.properties ?? {}).length === 0) return undefined;
  return geminiSchema(clone(inputSchema), '(root)', true);
}

const ANTHROPIC_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

function anthropicNode(s: Json, path: string): Json {
  const rest = { ...s };
  const take = (k: string) => { const v = rest[k]; delete rest[k]; return v; };
  const out: Json = {};
  const type = take('type'); const anyOf = take('anyOf'); const oneOf = take('oneOf'); const allOf = take('allOf');
  if (anyOf ?? oneOf) out.anyOf = (anyOf ?? oneOf).map((b: Json, i: number) => anthropicNode(b, `${path}.anyOf[${i}]`));
  else if (allOf) out.allOf = allOf.map((b: Json, i: number) => anthropicNode(b, `${path}.allOf[${i}]`));
  else if (type === undefined) throw new Error(`${path}: JSON schema must have a type defined if anyOf/oneOf/allOf are not used`);
  else out.type = type;
  const description = take('description');
  if (description !== undefined) out.description = description;
  if (type === 'object') {
    out.properties = Object.fromEntries(Object.entries<Json>(take('properties') ?? {}).map(([k, v]) => [k, anthropicNode(v, `${path}.${k}`)]));
    take('additionalProperties');
    out.additionalProperties = false;
    const required = take('required');
    if (required !== undefined) out.required = required;
  } else if (type === 'string' && ANTHROPIC_FORMATS.has(rest.format)) out.format = take('format');
  else if (type === 'array') {
    if (rest.items !== undefined) out.items = anthropicNode(take('items'), `${path}[]`);
    if (rest.minItems === 0 || rest.minItems === 1) out.minItems = take('minItems');
  }
  if (Object.keys(rest).length > 0) out.description = `${out.description ? `${out.description}\n\n` : ''}{${Object.entries(rest).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')}}`;
  return out;
}

/** Anthropic's input_schema in strict tool use. */
export function anthropicStrict(inputSchema: Json): Json {
  if (inputSchema.type !== 'object') throw new Error('input_schema must be an object at the root');
  return anthropicNode(clone(inputSchema), '(root)');
}

/**
 * Every field path of a schema (through properties, items and union branches), with its
 * description: what a converted schema must still have.
 */
export function fieldPaths(s: unknown, path = '', out = new Map<string, string | undefined>()): Map<string, string | undefined> {
  if (!isObj(s)) return out;
  for (const b of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) fieldPaths(b, path, out);
  for (const [k, v] of Object.entries<Json>(s.properties ?? {})) {
    const p = path ? `${path}.${k}` : k;
    const d = v.description ?? v.anyOf?.find((b: Json) => b.description)?.description;
    out.set(p, d === undefined ? undefined : String(d).split('\n\n')[0]);
    fieldPaths(v, p, out);
  }
  if (s.items) fieldPaths(s.items, `${path}[]`, out);
  return out;
}
