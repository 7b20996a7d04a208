/**
 * Loads the official PVE API schema (the api-viewer's `apidata.js` array) once per mode and
 * answers "which endpoint serves this path?" by walking the same tree pveproxy walks:
 * a literal child first, then a `{param}` child.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export type PveMode = '9' | '8';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One property in PVE's JSON-schema dialect (only the keys the simulator reads). */
export interface PveSchema {
  type?: string;
  optional?: 0 | 1;
  default?: unknown;
  minimum?: number | string;
  maximum?: number | string;
  minLength?: number;
  maxLength?: number;
  enum?: string[];
  pattern?: string;
  format?: string | Record<string, PveSchema>;
  default_key?: 0 | 1;
  alias?: string;
  requires?: string;
  items?: PveSchema;
  properties?: Record<string, PveSchema>;
  additionalProperties?: 0 | 1 | boolean | PveSchema;
}

export interface PveMethodInfo {
  name: string;
  method: HttpMethod;
  parameters?: { additionalProperties?: 0 | 1; properties?: Record<string, PveSchema> };
  returns?: PveSchema;
  permissions?: { check?: unknown[]; user?: string; description?: string };
  protected?: 0 | 1;
  proxyto?: string;
  allowtoken?: 0 | 1;
}

interface ApiNode {
  path: string;
  text: string;
  leaf: 0 | 1;
  children?: ApiNode[];
  info?: Partial<Record<HttpMethod, PveMethodInfo>>;
}

export interface RouteMatch {
  /** Path template as in the schema, e.g. `/nodes/{node}/qemu/{vmid}/clone`. */
  template: string;
  info: Partial<Record<HttpMethod, PveMethodInfo>>;
  /** Values of the `{param}` segments, still strings. */
  pathParams: Record<string, string>;
}

export interface SchemaIndex {
  mode: PveMode;
  file: string;
  endpointCount: number;
  find(apiPath: string): RouteMatch | undefined;
  /** Every endpoint as `METHOD template`. */
  endpoints(): string[];
  method(template: string, method: HttpMethod): PveMethodInfo | undefined;
}

const FILES: Record<PveMode, string> = { '9': 'pve-apidata.json', '8': 'pve8-apidata.json' };
const cache = new Map<string, SchemaIndex>();

/** The package's own copy (packages/pve-simulator/schema); PVE_SIM_SCHEMA_DIR overrides it. */
export function defaultSchemaDir(): string {
  if (process.env.PVE_SIM_SCHEMA_DIR) return process.env.PVE_SIM_SCHEMA_DIR;
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'schema');
}

export function loadSchema(mode: PveMode, dir: string = defaultSchemaDir()): SchemaIndex {
  const file = path.join(dir, FILES[mode]);
  const hit = cache.get(file);
  if (hit) return hit;
  const roots = JSON.parse(readFileSync(file, 'utf8')) as ApiNode[];
  const byTemplate = new Map<string, ApiNode>();
  let endpointCount = 0;
  const walk = (nodes: ApiNode[]): void => {
    for (const n of nodes) {
      byTemplate.set(n.path, n);
      if (n.info) endpointCount += Object.keys(n.info).length;
      if (n.children) walk(n.children);
    }
  };
  walk(roots);
  const top: ApiNode = { path: '', text: '', leaf: 0, children: roots };

  const index: SchemaIndex = {
    mode,
    file,
    endpointCount,
    find(apiPath) {
      const segments = apiPath.split('/').filter((s) => s !== '');
      let node = top;
      const pathParams: Record<string, string> = {};
      for (const raw of segments) {
        const seg = safeDecode(raw);
        const kids = node.children ?? [];
        const literal = kids.find((k) => k.text === seg);
        const param = literal ? undefined : kids.find((k) => k.text.startsWith('{'));
        const next = literal ?? param;
        if (!next) return undefined;
        if (param) pathParams[param.text.slice(1, -1)] = seg;
        node = next;
      }
      if (node === top || !node.info) return undefined;
      return { template: node.path, info: node.info, pathParams };
    },
    endpoints() {
      const out: string[] = [];
      for (const [t, n] of byTemplate) for (const m of Object.keys(n.info ?? {})) out.push(`${m} ${t}`);
      return out;
    },
    method(template, method) {
      return byTemplate.get(template)?.info?.[method];
    },
  };
  cache.set(file, index);
  return index;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
