/**
 * GitHub's own description of the three operations, compiled for checking: loads
 * openapi/github-subset.json (extracted from github/rest-api-description, see its `x-source`),
 * turns its OpenAPI 3.0 schemas into JSON Schema ajv compiles, and gives each operation
 * matchers and validators for its path parameters, its request body and each response.
 *
 * OpenAPI 3.0 → JSON Schema: `$ref`s to `#/components/schemas/X` point into one registered root
 * schema; `nullable: true` becomes a `null` type (or `anyOf [… , null]` where there is no `type`);
 * `example` and `x-*` annotations are dropped. Formats are checked (ajv-formats: date-time, uri,
 * int64 …). The description does not forbid extra properties, and neither does this.
 *
 * Responses with a status the operation does not declare (the description leaves out e.g. the
 * 401 GitHub sends for a bad JWT) are checked against `basic-error`, the shape of every GitHub
 * error body; an undeclared 2xx is a violation.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { OperationId } from './types.ts';

const SUBSET_URL = new URL('../openapi/github-subset.json', import.meta.url);
const ROOT_ID = 'github-subset';

type Json = any;

export interface CompiledOperation {
  id: OperationId;
  method: string;
  /** e.g. `/app/installations/{installation_id}/access_tokens` */
  pathTemplate: string;
  /** The operation's documentation page (externalDocs.url): GitHub's `documentation_url` for its errors. */
  docsUrl: string;
  /** Path parameters of `path` (relative to the API root) when it matches the template. */
  match(path: string): Record<string, string> | undefined;
  /** Coerces and checks path parameters; `errors` when they do not match their schemas. */
  checkParams(raw: Record<string, string>): { params: Record<string, string | number>; errors?: string };
  hasBody: boolean;
  /** `undefined` when the JSON body matches the requestBody schema, else ajv's text. */
  checkBody(body: unknown): string | undefined;
  /** `undefined` when `body` matches the declared response for `status`, else why not. */
  checkResponse(status: number, body: unknown): string | undefined;
}

/** OpenAPI 3.0 schema object → JSON Schema (draft-07, as ajv compiles it). */
function toJsonSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') return { $ref: refTarget(node.$ref) };
  const out: Json = {};
  for (const [key, value] of Object.entries<Json>(node)) {
    if (key === 'nullable' || key === 'example' || key.startsWith('x-')) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries<Json>(value).map(([name, s]) => [name, toJsonSchema(s)]));
    } else if (key === 'enum' || key === 'default' || key === 'required') {
      out[key] = value;
    } else {
      out[key] = toJsonSchema(value);
    }
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    } else {
      return { anyOf: [out, { type: 'null' }] };
    }
  }
  return out;
}

function refTarget(ref: string): string {
  const m = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
  if (!m) throw new Error(`github-subset: unsupported schema $ref ${ref}`);
  return `${ROOT_ID}#/definitions/${m[1]}`;
}

/** `#/components/<kind>/<name>` in the subset, followed until it is not a `$ref`. */
function deref(doc: Json, node: Json): Json {
  let n = node;
  for (let i = 0; i < 10 && n && typeof n.$ref === 'string'; i++) {
    const [, , kind, name] = n.$ref.split('/');
    n = doc.components?.[kind]?.[name];
    if (n === undefined) throw new Error(`github-subset: dangling $ref ${node.$ref}`);
  }
  return n;
}

let cache: { doc: Json; ops: CompiledOperation[] } | undefined;

/** The subset document as shipped (parsed once per process). */
export function subsetDocument(): Json {
  return load().doc;
}

/** The three operations, compiled (once per process). */
export function compiledOperations(): CompiledOperation[] {
  return load().ops;
}

function load(): { doc: Json; ops: CompiledOperation[] } {
  if (cache) return cache;
  const doc = JSON.parse(readFileSync(SUBSET_URL, 'utf8'));
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajvFormats.default(ajv);
  const definitions = Object.fromEntries(Object.entries<Json>(doc.components?.schemas ?? {}).map(([name, s]) => [name, toJsonSchema(s)]));
  ajv.addSchema({ $id: ROOT_ID, definitions });
  const basicError = ajv.compile({ $ref: `${ROOT_ID}#/definitions/basic-error` });

  const ops: CompiledOperation[] = [];
  for (const [pathTemplate, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      ops.push(compileOperation(doc, ajv, basicError, pathTemplate, method.toUpperCase(), op));
    }
  }
  cache = { doc, ops };
  return cache;
}

function compileOperation(doc: Json, ajv: Ajv, basicError: ValidateFunction, pathTemplate: string, method: string, op: Json): CompiledOperation {
  const names: string[] = [];
  const pattern = new RegExp(`^${pathTemplate.replace(/\{([^}]+)\}/g, (_, name: string) => { names.push(name); return '([^/]+)'; })}$`);
  const params = (op.parameters ?? []).map((p: Json) => deref(doc, p)).filter((p: Json) => p.in === 'path');
  const paramSchema = {
    type: 'object',
    properties: Object.fromEntries(params.map((p: Json) => [p.name, toJsonSchema(p.schema)])),
    required: params.filter((p: Json) => p.required).map((p: Json) => p.name),
  };
  const checkParamsFn = ajv.compile(paramSchema);
  const integerParams = new Set<string>(params.filter((p: Json) => p.schema?.type === 'integer').map((p: Json) => p.name as string));

  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const checkBodyFn = bodySchema ? ajv.compile(toJsonSchema(bodySchema)) : undefined;

  const responses = new Map<number, ValidateFunction | null>();
  for (const [code, r] of Object.entries<Json>(op.responses ?? {})) {
    const schema = deref(doc, r).content?.['application/json']?.schema;
    responses.set(Number(code), schema ? ajv.compile(toJsonSchema(schema)) : null);
  }

  const text = (fn: ValidateFunction, dataVar: string) => ajv.errorsText(fn.errors, { dataVar });
  return {
    id: op.operationId,
    method,
    pathTemplate,
    docsUrl: op.externalDocs?.url ?? 'https://docs.github.com/rest',
    hasBody: Boolean(checkBodyFn),
    match(path) {
      const m = pattern.exec(path);
      if (!m) return undefined;
      return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
    },
    checkParams(raw) {
      const coerced: Record<string, string | number> = { ...raw };
      for (const name of integerParams) {
        if (/^-?\d+$/.test(raw[name] ?? '')) coerced[name] = Number(raw[name]);
      }
      return checkParamsFn(coerced) ? { params: coerced } : { params: coerced, errors: text(checkParamsFn, 'path') };
    },
    checkBody(body) {
      if (!checkBodyFn) return body === undefined ? undefined : 'this operation takes no body';
      return checkBodyFn(body) ? undefined : text(checkBodyFn, 'body');
    },
    checkResponse(status, body) {
      if (!responses.has(status)) {
        if (status < 400) return `status ${status} is not declared for ${op.operationId}`;
        return basicError(body) ? undefined : text(basicError, 'response');
      }
      const fn = responses.get(status);
      if (fn === null) return body === undefined ? undefined : `status ${status} of ${op.operationId} has no content, but a body was sent`;
      return fn!(body) ? undefined : text(fn!, 'response');
    },
  };
}
