/**
 * @vmhub/pve-simulator — a Proxmox VE API server for tests (private workspace package).
 *
 * Every request's path, method and parameters and every response's `data` are checked against
 * the official PVE API schema (9.1, or 8.4 in mode '8'). It models nodes, storage, VMIDs,
 * templates, linked/full clones as tasks with real UPIDs, locks, tag normalisation, cloud-init
 * config, guest-agent states, token privileges, and per-test faults. See README.md.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Cluster } from './cluster.ts';
import { Faults } from './faults.ts';
import type { PveSimulatorOptions } from './options.ts';
import { loadSchema, type PveMode } from './schema-tree.ts';
import { handleRequest, newStats, type ServerContext, type Violation } from './server.ts';
import { SimState } from './state.ts';
import { simCertificate } from './tls.ts';

export type { PveSimulatorOptions, SimTiming } from './options.ts';
export type { FaultKind, FaultSpec, ActiveFault } from './faults.ts';
export { Faults } from './faults.ts';
export type { TaskFailureRule } from './cluster.ts';
export type {
  AclEntry, ExecHandler, ExecRequest, ExecResult, GuestBoot, GuestInterface, GuestIpAddress, GuestOptions,
  SimNodeConfig, SimPoolConfig, SimStorageConfig, SimTokenConfig, SimVmSeed, DestroyRecord, ConfigValue,
} from './model.ts';
export type { Violation, RequestStats, RequestRecord } from './server.ts';
export { SimState, type VmView, type TaskView, type GuestOverrides, type SnapshotView } from './state.ts';
export type { PveMode } from './schema-tree.ts';
export { loadSchema } from './schema-tree.ts';
export { normalizeTags } from './tags.ts';
export { defaultExec } from './handlers/qemu-agent.ts';
export { simClient, encodeForm, type SimClient, type SimResponse, type FormValue } from './sim-client.ts';

export interface PveSimulator {
  /** `https://127.0.0.1:<port>` (or http://); the API is under `/api2/json`. */
  url: string;
  /** `url + '/api2/json'`. */
  apiUrl: string;
  /** `127.0.0.1:<port>`, the form of PVE_HOST. */
  hostPort: string;
  port: number;
  tls: boolean;
  /** The self-signed certificate (HTTPS only): PEM and `AB:CD:..` SHA-256 fingerprint for pinning. */
  certificate: { pem: string; fingerprint256: string } | undefined;
  /** The first configured token, ready to use: `authorization` is the full header value. */
  token: { tokenId: string; secret: string; authorization: string };
  readonly mode: PveMode;
  /** Switch schema and version behaviour ('9' = PVE 9.1, '8' = PVE 8.4). State is kept. */
  setMode(mode: PveMode): void;
  faults: Faults;
  state: SimState;
  /** Responses that failed their `returns` schema (simulator bugs). Tests assert it stays empty. */
  violations: Violation[];
  /**
   * Another listener on the same cluster (like a second node's pveproxy): same state, tokens and
   * certificate, its own port. Requests it serves are logged with its `listener` index.
   */
  addEndpoint(): Promise<SimEndpoint>;
  /** Closes every listener and ends open connections. */
  close(): Promise<void>;
}

export interface SimEndpoint {
  /** 0 for the first listener, then 1, 2, ... */
  index: number;
  url: string;
  apiUrl: string;
  hostPort: string;
  port: number;
  /** Stops this listener only (its clients then get ECONNREFUSED). */
  close(): Promise<void>;
}

export async function startPveSimulator(options: PveSimulatorOptions = {}): Promise<PveSimulator> {
  const cluster = new Cluster(options);
  cluster.schema = loadSchema(cluster.mode, options.schemaDir);
  const tokens = options.tokens ?? [{ tokenId: 'vmhub@pve!sim', secret: randomUUID(), acl: [{ path: '/', roles: ['Administrator'] }] }];
  for (const t of tokens) cluster.tokens.set(t.tokenId, t);
  const first = tokens[0];
  if (!first) throw new Error('[vmhub] [pve-simulator] options.tokens is empty: give at least one token');

  const faults = new Faults(cluster);
  const violations: Violation[] = [];
  const ctx: ServerContext = { cluster, faults, stats: newStats(), violations };
  const state = new SimState(cluster, () => ctx.stats, () => {
    ctx.stats = newStats();
  });

  const useTls = options.tls ?? true;
  const cert = useTls ? await simCertificate(options.freshCertificate) : undefined;
  cluster.fingerprint = cert?.fingerprint256;
  const host = options.host ?? '127.0.0.1';
  const endpoints: SimEndpoint[] = [];
  let nextIndex = 0;
  const listen = async (): Promise<SimEndpoint> => {
    const index = nextIndex++;
    const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
      handleRequest(ctx, req, res, index).catch((e: unknown) => {
        process.stderr.write(`[vmhub] [pve-simulator] internal error: ${(e as Error).stack ?? String(e)}\n`);
        if (!res.headersSent) res.writeHead(500, 'pve-simulator internal error').end();
      });
    };
    const server: Server = cert ? createHttpsServer({ cert: cert.cert, key: cert.key }, onRequest) : createHttpServer(onRequest);
    const sockets = new Set<Socket>();
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(index === 0 ? (options.port ?? 0) : 0, host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    const url = `${useTls ? 'https' : 'http'}://${host}:${port}`;
    const ep: SimEndpoint = {
      index,
      url,
      apiUrl: `${url}/api2/json`,
      hostPort: `${host}:${port}`,
      port,
      close: () =>
        new Promise<void>((resolve) => {
          if (!server.listening) return resolve();
          server.close(() => resolve());
          for (const s of sockets) s.destroy();
          server.closeAllConnections();
        }),
    };
    endpoints.push(ep);
    return ep;
  };
  const main = await listen();
  const { url, port } = main;

  return {
    url,
    apiUrl: `${url}/api2/json`,
    hostPort: main.hostPort,
    port,
    tls: useTls,
    certificate: cert ? { pem: cert.cert, fingerprint256: cert.fingerprint256 } : undefined,
    token: { tokenId: first.tokenId, secret: first.secret, authorization: `PVEAPIToken=${first.tokenId}=${first.secret}` },
    get mode() {
      return cluster.mode;
    },
    setMode(mode: PveMode) {
      cluster.mode = mode;
      cluster.schema = loadSchema(mode, options.schemaDir);
    },
    faults,
    state,
    violations,
    addEndpoint: listen,
    close: async () => {
      await Promise.all(endpoints.map((e) => e.close()));
    },
  };
}
