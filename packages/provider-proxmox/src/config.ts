/**
 * Where the provider's endpoints, tokens and TLS trust come from. Compatible with the vmhub seed's
 * env names (PVE_HOST, PVE_TOKEN_ID, PVE_TOKEN, VMHUB_NODES, VMHUB_NODE_<ID>_BASE_URL,
 * VMHUB_NODE_<ID>_TOKEN). Rule: the most specific setting wins (a node's own value beats a global
 * one); at equal specificity an explicit option beats its env var. Global PVE_HOST / PVE_TOKEN
 * (and options.base_url / options.token) belong to the first (default) node only.
 */
import { VmhubError } from '@vmhub/core';
import type { ProxmoxEndpointOptions, ProxmoxOptions } from './options.ts';
import { SOURCE } from './pve-errors.ts';

export interface ResolvedEndpoint {
  id: string;
  /** `https://host:port/api2/json` (no trailing slash). */
  baseUrl: string;
  tokenId: string;
  token: string;
  ca?: string;
  caFile?: string;
  /** Lowercase hex without separators. */
  fingerprint?: string;
  insecureSkipVerify: boolean;
}

export interface ResolvedProxmoxConfig {
  endpoints: ResolvedEndpoint[];
  stateDir?: string;
}

export type Env = Record<string, string | undefined>;

const DEFAULT_TOKEN_ID = 'vmhub@pve!automation';
const TOKEN_ID = /^[^\s:/]+@[A-Za-z][A-Za-z0-9.\-_]+![A-Za-z][A-Za-z0-9.\-_]+$/;

function fail(message: string): never {
  throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] ${message}`, { source: SOURCE, hint: 'Fix the provider configuration (node_modules/@vmhub/server/docs/providers/proxmox.md), then restart vmhub.' });
}

/** `VMHUB_NODE_<ID>_...`: the id upper-cased, anything outside [A-Z0-9] as `_`. */
export function nodeEnvName(id: string, suffix: string): string {
  return `VMHUB_NODE_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${suffix}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v ? v : undefined;
}

/** Accepts `host:port`, `https://host:port` and either with `/api2/json`. */
export function normalizeBaseUrl(raw: string, what: string): string {
  const hadScheme = /^[a-z]+:\/\//i.test(raw);
  let url: URL;
  try {
    url = new URL(hadScheme ? raw : `https://${raw}`);
  } catch {
    fail(`${what} "${raw}" is not host:port or an https URL`);
  }
  if (url.protocol === 'http:') {
    // The token would travel in clear text: only a loopback test endpoint may use http.
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) fail(`${what} "${raw}" uses http:// on a non-loopback host: use https://`);
  } else if (url.protocol !== 'https:') {
    fail(`${what} "${raw}" must use https://`);
  }
  if (!hadScheme && url.port === '') url.port = '8006';
  let path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/api2/json')) path = `${path}/api2/json`;
  return `${url.protocol}//${url.host}${path}`;
}

export function normalizeFingerprint(raw: string, what: string): string {
  const hex = raw.trim().toLowerCase().replace(/^sha256:/, '').replace(/[:\s]/g, '');
  if (!/^[0-9a-f]{64}$/.test(hex)) fail(`${what} must be a SHA-256 fingerprint (64 hex digits, colons allowed), got ${hex.length} hex digits`);
  return hex;
}

function splitToken(token: string): { tokenId?: string; secret: string } {
  // A full `user@realm!name=secret` value carries its own id.
  const m = /^([^\s=]+![^\s=]+)=(.+)$/.exec(token);
  return m ? { tokenId: m[1], secret: m[2] } : { secret: token };
}

function truthy(value: string | undefined): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return ['1', 'true', 'yes'].includes(value.trim().toLowerCase());
}

export function resolveProxmoxConfig(env: Env, options: Partial<ProxmoxOptions> = {}): ResolvedProxmoxConfig {
  // An explicit single endpoint (options.base_url) is a whole configuration: env VMHUB_NODES does not add to it.
  const listed: ProxmoxEndpointOptions[] = options.endpoints
    ?? (nonEmpty(options.base_url) ? [{ id: 'default' }] : undefined)
    ?? (nonEmpty(env.VMHUB_NODES)?.split(',').map((s) => s.trim()).filter(Boolean).map((id) => ({ id })))
    ?? [{ id: 'default' }];
  if (listed.length === 0) fail('VMHUB_NODES lists no node');
  const seen = new Set<string>();
  const endpoints = listed.map((ep, index): ResolvedEndpoint => {
    if (seen.has(ep.id)) fail(`node "${ep.id}" is listed twice`);
    seen.add(ep.id);
    const first = index === 0;
    const baseRaw = nonEmpty(ep.base_url) ?? nonEmpty(env[nodeEnvName(ep.id, 'BASE_URL')])
      ?? (first ? nonEmpty(options.base_url) ?? nonEmpty(env.PVE_HOST) : undefined);
    if (!baseRaw) fail(`node "${ep.id}" has no API address: set ${nodeEnvName(ep.id, 'BASE_URL')}${first ? ' or PVE_HOST (host:8006)' : ''}`);
    const tokenRaw = nonEmpty(ep.token) ?? nonEmpty(env[nodeEnvName(ep.id, 'TOKEN')])
      ?? (first ? nonEmpty(options.token) ?? nonEmpty(env.PVE_TOKEN) : undefined);
    if (!tokenRaw) fail(`node "${ep.id}" has no API token secret: set ${nodeEnvName(ep.id, 'TOKEN')}${first ? ' or PVE_TOKEN' : ''}`);
    const { tokenId: embedded, secret } = splitToken(tokenRaw);
    const tokenId = nonEmpty(ep.token_id) ?? nonEmpty(env[nodeEnvName(ep.id, 'TOKEN_ID')]) ?? embedded
      ?? nonEmpty(options.token_id) ?? nonEmpty(env.PVE_TOKEN_ID) ?? DEFAULT_TOKEN_ID;
    if (!TOKEN_ID.test(tokenId)) fail(`node "${ep.id}" token id "${tokenId}" is not user@realm!tokenname (PVE_TOKEN_ID)`);
    const fp = nonEmpty(ep.fingerprint) ?? nonEmpty(env[nodeEnvName(ep.id, 'FINGERPRINT')]) ?? nonEmpty(options.fingerprint) ?? nonEmpty(env.PVE_FINGERPRINT);
    const out: ResolvedEndpoint = {
      id: ep.id,
      baseUrl: normalizeBaseUrl(baseRaw, `node "${ep.id}" base URL`),
      tokenId,
      token: secret,
      insecureSkipVerify: ep.insecure_skip_verify ?? options.insecure_skip_verify ?? truthy(env.PVE_INSECURE_SKIP_VERIFY) ?? false,
    };
    const ca = nonEmpty(ep.ca) ?? nonEmpty(options.ca);
    const caFile = nonEmpty(ep.ca_file) ?? nonEmpty(env[nodeEnvName(ep.id, 'CA_FILE')]) ?? nonEmpty(options.ca_file) ?? nonEmpty(env.PVE_CA_FILE);
    if (ca) out.ca = ca;
    else if (caFile) out.caFile = caFile;
    if (fp) out.fingerprint = normalizeFingerprint(fp, `node "${ep.id}" fingerprint`);
    return out;
  });
  const stateDir = nonEmpty(options.state_dir) ?? nonEmpty(env.VMHUB_STATE_DIR);
  return stateDir ? { endpoints, stateDir } : { endpoints };
}
