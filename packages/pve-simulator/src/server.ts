/**
 * The HTTP(S) front: what pveproxy + the REST handler do for every request, in order — formatter
 * prefix, method, injected faults, body limits and decoding, schema route lookup (501 for unknown
 * paths/methods), token auth (401), parameter merge/coercion/validation (400), forwarding to the
 * node (595 when offline), schema permission check (403), the handler, and validation of the
 * handler's `data` against the endpoint's `returns` (a mismatch is a simulator bug: recorded).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate, checkSchemaPermissions, type Caller } from './auth.ts';
import type { Cluster } from './cluster.ts';
import type { Faults } from './faults.ts';
import { WithEnvelope, sleep } from './handler.ts';
import { PveHttpError, paramError } from './pve-error.ts';
import { coerceParams, decodeUrlencoded } from './request-params.ts';
import { ROUTES } from './routes.ts';
import type { HttpMethod } from './schema-tree.ts';
import { validateParams, validateReturns } from './pve-validate.ts';
import { undeclaredKeys } from './response-extras.ts';

const MAX_BODY = 512 * 1024;
const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE']);

export interface Violation {
  method: string;
  path: string;
  endpoint: string;
  errors: string[];
  data: unknown;
}

export interface RequestRecord {
  method: string;
  path: string;
  /** `METHOD /template` when the path matched the schema. */
  endpoint: string | undefined;
  status: number;
  ms: number;
  /** Which listener served it (0 = `sim.url`, then `addEndpoint()` order). */
  listener: number;
  /** The authenticated token, when authentication got that far. */
  tokenId: string | undefined;
  /** The request's parameters (path, query and body, typed), once they passed the schema. */
  params?: Record<string, unknown>;
}

export interface RequestStats {
  total: number;
  byEndpoint: Record<string, number>;
  byStatus: Record<string, number>;
  log: RequestRecord[];
  /** Endpoints answered 2xx with a response that passed `returns` validation. */
  validated: Set<string>;
  /** Schema endpoints called that the simulator does not model (answered 501). */
  unimplemented: Record<string, number>;
  /** Response keys the endpoint's `returns` schema does not declare (allowed, but worth a look). */
  undeclared: Record<string, Set<string>>;
}

export function newStats(): RequestStats {
  return { total: 0, byEndpoint: {}, byStatus: {}, log: [], validated: new Set(), unimplemented: {}, undeclared: {} };
}

/** Schema-vs-reality differences PVE itself has; the response is checked in its documented form. */
const QUIRKS: Record<string, (data: unknown) => unknown> = {
  // /cluster/nextid: the schema says integer, PVE sends a JSON string
  'GET /cluster/nextid': (d) => (typeof d === 'string' && /^\d+$/.test(d) ? Number(d) : d),
};

export interface ServerContext {
  cluster: Cluster;
  faults: Faults;
  stats: RequestStats;
  violations: Violation[];
}

export async function handleRequest(ctx: ServerContext, req: IncomingMessage, res: ServerResponse, listener = 0): Promise<void> {
  const t0 = Date.now();
  const { cluster, faults } = ctx;
  const stats = ctx.stats;
  const method = (req.method ?? 'GET').toUpperCase();
  const url = new URL(req.url ?? '/', 'http://sim');
  const apiPath = url.pathname.startsWith('/api2/json') ? url.pathname.slice('/api2/json'.length) || '/' : undefined;
  let endpoint: string | undefined;
  let caller: Caller | undefined;
  let dropAfter = false;
  let valid: Record<string, unknown> | undefined;
  const record = (status: number): void => {
    stats.total++;
    stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
    if (endpoint) stats.byEndpoint[endpoint] = (stats.byEndpoint[endpoint] ?? 0) + 1;
    stats.log.push({ method, path: url.pathname, endpoint, status, ms: Date.now() - t0, listener, tokenId: caller?.tokenId, ...(valid ? { params: valid } : {}) });
  };
  try {
    cluster.tick();
    if (apiPath === undefined) throw new PveHttpError(501, `no such uri`);
    if (!METHODS.has(method)) throw new PveHttpError(501, `method '${method}' not available`);

    const fault = faults.pick(method, apiPath);
    if (fault) {
      if (fault.kind === 'slow') await sleep(fault.delayMs ?? 2000);
      if (fault.kind === 'drop' && fault.phase !== 'after') {
        record(0);
        req.socket.destroy();
        return;
      }
      if (fault.kind === 'drop') dropAfter = true;
      if (fault.kind === '596') {
        await sleep(fault.delayMs ?? 0);
        throw new PveHttpError(596, 'Connection timed out');
      }
      if (fault.kind === '500') throw new PveHttpError(500, fault.message ?? 'simulated failure (pve-simulator fault)');
      if (fault.kind === 'lock') {
        const vmid = /\/(?:qemu|lxc)\/(\d+)/.exec(apiPath)?.[1] ?? '0';
        const vm = cluster.vms.get(Number(vmid));
        if (fault.delayMs !== undefined && vm) {
          // a real lock for a while (e.g. a backup started): the handler's own checks answer
          const lock = fault.message ?? 'backup';
          vm.config.lock = lock;
          cluster.timedUnlocks.push({ vmid: vm.vmid, lock, at: cluster.now() + fault.delayMs });
        } else {
          throw new PveHttpError(500, fault.message ? `VM is locked (${fault.message})` : `can't lock file '/var/lock/qemu-server/lock-${vmid}.conf' - got timeout`);
        }
      }
    }

    const body = await readBody(req);
    const route = cluster.schema.find(apiPath);
    const info = route?.info[method as HttpMethod];
    if (!route || !info) throw new PveHttpError(501, `Method '${method} ${apiPath}' not implemented`);
    endpoint = `${method} ${route.template}`;

    try {
      caller = authenticate(cluster, req.headers.authorization);
    } catch (e) {
      await sleep(cluster.opts.authFailureDelayMs ?? 0);
      throw e;
    }
    if (info.allowtoken === 0) throw new PveHttpError(403, `Permission check failed (URI '${apiPath}' not available with API token, need proper ticket.)`);

    const { values: bodyValues, fromForm: bodyForm } = parseBody(req, body);
    const query = decodeUrlencoded(url.search.slice(1));
    const raw: Record<string, unknown> = { ...bodyValues, ...query };
    const fromForm = new Set([...bodyForm, ...Object.keys(query)]);
    for (const [k, v] of Object.entries(route.pathParams)) {
      if (k in raw && String(raw[k]) !== v) throw new PveHttpError(400, 'duplicate parameter (already defined in URI) with conflicting values!');
      raw[k] = v;
      fromForm.add(k);
    }
    const props = info.parameters?.properties;
    const params = coerceParams(props, raw, fromForm);
    const errors = validateParams(`${cluster.schema.file}|${endpoint}`, info.parameters ?? {}, params);
    if (errors) throw paramError(errors);
    for (const [k, s] of Object.entries(props ?? {})) {
      if (s.requires && params[k] !== undefined && params[s.requires] === undefined)
        throw paramError({ [k]: `missing property - '${s.requires}' requires this property` });
    }
    valid = params;

    if (info.proxyto === 'node' && typeof params.node === 'string') {
      const node = cluster.nodes.get(params.node);
      if (!node) throw new PveHttpError(500, `hostname lookup '${params.node}' failed - failed to get address info for: ${params.node}: Name or service not known`);
      if (!node.online) throw new PveHttpError(595, 'Errors during connection establishment, proxy handshake: No route to host');
    }
    checkSchemaPermissions(cluster, caller, info.permissions, params);

    const handler = ROUTES[endpoint];
    if (!handler) {
      stats.unimplemented[endpoint] = (stats.unimplemented[endpoint] ?? 0) + 1;
      throw new PveHttpError(501, `Method '${method} ${apiPath}' not implemented by pve-simulator`);
    }
    const result = await handler({ cluster, caller, params, method: method as HttpMethod, template: route.template });
    const envelope = result instanceof WithEnvelope ? { data: result.data, ...result.extra } : { data: result === undefined ? null : result };

    const checked = QUIRKS[endpoint]?.(envelope.data) ?? envelope.data;
    const problems = validateReturns(`${cluster.schema.file}|${endpoint}`, info.returns, checked);
    if (problems) {
      ctx.violations.push({ method, path: apiPath, endpoint, errors: problems, data: envelope.data });
      if (cluster.opts.onViolation === 'respond500') throw new PveHttpError(500, `pve-simulator bug: response of ${endpoint} violates the schema: ${problems.join('; ')}`);
    } else stats.validated.add(endpoint);
    for (const k of undeclaredKeys(info.returns, envelope.data)) (stats.undeclared[endpoint] ??= new Set()).add(k);

    if (dropAfter) {
      record(0);
      req.socket.destroy();
      return;
    }
    send(res, 200, 'OK', envelope);
    record(200);
  } catch (e) {
    if (!(e instanceof PveHttpError) && (req.destroyed || res.destroyed || (e as NodeJS.ErrnoException).code === 'ECONNRESET' || (e as Error).message === 'aborted')) {
      // the client went away (timeout, abort): nobody to answer, and not a simulator bug
      record(0);
      return;
    }
    if (!(e instanceof PveHttpError)) {
      // a JS exception out of a handler is a simulator bug, not a PVE answer: make tests see it
      ctx.violations.push({ method, path: apiPath ?? url.pathname, endpoint: endpoint ?? '?', errors: [`internal error: ${(e as Error).stack ?? String(e)}`], data: undefined });
    }
    const err = e instanceof PveHttpError ? e : new PveHttpError(500, (e as Error).message ?? String(e));
    if (dropAfter) {
      record(0);
      req.socket.destroy();
      return;
    }
    const message = err.message.endsWith('\n') ? err.message : `${err.message}\n`;
    const body = err.emptyBody ? undefined : { data: null, ...(err.errors ? { errors: err.errors } : {}), message };
    send(res, err.status, err.message, body);
    record(err.status);
  }
}

function send(res: ServerResponse, status: number, reason: string, body: unknown): void {
  const phrase = (reason.split('\n')[0] ?? '').replace(/[^\x20-\x7e]/g, '?').slice(0, 512) || 'Error';
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, phrase, {
    'content-type': 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'max-age=0',
    pragma: 'no-cache',
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    // keep draining an oversized body so the client reads the 501 instead of a reset
    if (size <= MAX_BODY) chunks.push(c as Buffer);
  }
  if (size > MAX_BODY) throw new PveHttpError(501, 'for data too large');
  return Buffer.concat(chunks);
}

function parseBody(req: IncomingMessage, body: Buffer): { values: Record<string, unknown>; fromForm: string[] } {
  if (body.length === 0) return { values: {}, fromForm: [] };
  const type = (req.headers['content-type'] ?? 'application/x-www-form-urlencoded').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (e) {
      throw new PveHttpError(400, `malformed JSON string: ${(e as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new PveHttpError(400, 'JSON body must be an object');
    return { values: parsed as Record<string, unknown>, fromForm: [] };
  }
  if (type === 'application/x-www-form-urlencoded') {
    const values = decodeUrlencoded(body.toString('utf8'));
    return { values, fromForm: Object.keys(values) };
  }
  throw new PveHttpError(506, `upload '${type}' not implemented`);
}
