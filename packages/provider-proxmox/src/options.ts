/**
 * ProxmoxOptions: everything an operator can set on the provider. Explicit options beat env vars;
 * the env var each field falls back to is named in its doc (resolution lives in config.ts).
 */
import { Type, type Static } from '@vmhub/core';

const Tls = {
  /** PEM text of the CA that signed the node certificate (the cluster's pve-root-ca.pem). Env: PVE_CA_FILE (a path). */
  ca: Type.Optional(Type.String({ minLength: 1 })),
  /** Path to a PEM CA file, read at first use. Env: PVE_CA_FILE / VMHUB_NODE_<ID>_CA_FILE. */
  ca_file: Type.Optional(Type.String({ minLength: 1 })),
  /** SHA-256 fingerprint of the node certificate (`pvenode cert info`), hex with or without colons. Env: PVE_FINGERPRINT / VMHUB_NODE_<ID>_FINGERPRINT. */
  fingerprint: Type.Optional(Type.String({ minLength: 1 })),
  /** Skip TLS verification. Default false; only an explicit `true` (or env PVE_INSECURE_SKIP_VERIFY=1) turns it on. */
  insecure_skip_verify: Type.Optional(Type.Boolean()),
};

export const ProxmoxEndpointSchema = Type.Object({
  /** vmhub's name for this API endpoint (a host or a cluster), e.g. "dl360p". */
  id: Type.String({ minLength: 1, pattern: '^[A-Za-z0-9_-]+$' }),
  /** `https://host:8006` (the `/api2/json` suffix is optional). Env: VMHUB_NODE_<ID>_BASE_URL, PVE_HOST for the first node. */
  base_url: Type.Optional(Type.String({ minLength: 1 })),
  /** API token id `user@realm!name`. Env: VMHUB_NODE_<ID>_TOKEN_ID, else PVE_TOKEN_ID. */
  token_id: Type.Optional(Type.String({ minLength: 1 })),
  /** API token secret. Env: VMHUB_NODE_<ID>_TOKEN, else PVE_TOKEN for the first node. */
  token: Type.Optional(Type.String({ minLength: 1 })),
  ...Tls,
}, { additionalProperties: false });

export const ProxmoxOptionsSchema = Type.Object({
  /** Several API endpoints (independent hosts or clusters). Default: from VMHUB_NODES, else one endpoint from PVE_HOST. */
  endpoints: Type.Optional(Type.Array(ProxmoxEndpointSchema, { minItems: 1 })),
  /** Single-endpoint shorthand: `host:port` or a URL. Env: PVE_HOST. */
  base_url: Type.Optional(Type.String({ minLength: 1 })),
  /** Token id for every endpoint that names none. Env: PVE_TOKEN_ID. */
  token_id: Type.Optional(Type.String({ minLength: 1 })),
  /** Token secret of the first endpoint. Env: PVE_TOKEN. */
  token: Type.Optional(Type.String({ minLength: 1 })),
  ...Tls,
  /** Timeout of one API request in ms. Default 15000. */
  request_timeout_ms: Type.Integer({ minimum: 100, maximum: 300000, default: 15000 }),
  /** Retries of a failed request (5xx, 596, connection errors; never 4xx). Default 4. */
  retries: Type.Integer({ minimum: 0, maximum: 10, default: 4 }),
  /** First backoff delay in ms; doubles each retry, with full jitter. Default 300. */
  retry_base_ms: Type.Integer({ minimum: 1, maximum: 60000, default: 300 }),
  /** Interval between task status polls in ms. Default 1000. */
  task_poll_ms: Type.Integer({ minimum: 10, maximum: 30000, default: 1000 }),
  /** Longest a single Proxmox task (clone, start, stop, destroy) may run, in ms. Default 600000. */
  task_timeout_ms: Type.Integer({ minimum: 100, maximum: 7200000, default: 600000 }),
  /** Interval between readiness probes (agent ping, addresses, SSH) in ms. Default 2000. */
  ready_poll_ms: Type.Integer({ minimum: 10, maximum: 60000, default: 2000 }),
  /** Attempts on lock contention / VMID races before giving up. Default 5. */
  lock_retries: Type.Integer({ minimum: 0, maximum: 20, default: 5 }),
  /** Directory for per-lease private keys (`<dir>/provider-proxmox/keys`, files mode 0600, removed at destroy). Env: VMHUB_STATE_DIR. Default: the instance's state directory the server, reaper and leases CLI give (beside the store); memory only without one. */
  state_dir: Type.Optional(Type.String({ minLength: 1 })),
  /** Cloud-init user the per-lease SSH key is installed for. Default "vmhub". */
  ciuser: Type.String({ minLength: 1, default: 'vmhub' }),
}, { additionalProperties: false });

export type ProxmoxOptions = Static<typeof ProxmoxOptionsSchema>;
export type ProxmoxEndpointOptions = Static<typeof ProxmoxEndpointSchema>;
