/**
 * The clone policy: scheme, host list, and the addresses a host stands for. `checkCloneUrl`
 * judges what the URL says (literal addresses in every spelling, loopback names);
 * `resolveCloneTarget` then resolves host names the way git's transports do (getaddrinfo, through
 * dns.lookup) and checks every address, so git can be pinned to exactly those (git-plan.ts).
 */
import { promises as dns } from 'node:dns';
import { VmhubError } from '@vmhub/core';
import type { VmhubConfig } from '@vmhub/core/config';
import { formatAddress, parseAddress, specialRange, type Bytes } from './address.ts';
import { canonicalHost, defaultPort, parseCloneUrl, type CloneUrl } from './url.ts';

export type CloneConfig = VmhubConfig['clone'];

/** Resolves a host name to every address git could connect to. Injectable for tests. */
export type Lookup = (host: string) => Promise<string[]>;

export interface CloneTarget {
  url: CloneUrl;
  /** Port git connects to (the scheme's default when the URL has none). */
  port: number | undefined;
  /** Every address the host stands for, all checked; git connects only to these. Empty for local paths. */
  addresses: string[];
}

/** dns.lookup is getaddrinfo, what git, curl and ssh call; looked up at call time so a test preload can stand in. */
export const systemLookup: Lookup = async (host) => (await dns.lookup(host, { all: true, order: 'verbatim' })).map((a) => a.address);

const ALLOW_PRIVATE = 'set clone.allow_private_hosts to allow';

/** Checks what the URL itself says; host names still need resolveCloneTarget. */
export function checkParsed(url: string, policy: CloneConfig): CloneUrl {
  const parsed = parseCloneUrl(url);
  if (parsed.form === 'local') {
    if (!policy.allow_file) throw new VmhubError('POLICY_DENIED', 'file:// and local paths are refused: they would read the server\'s own disk (set clone.allow_file to allow)');
    return parsed;
  }
  if (!policy.allowed_schemes.map((s) => s.toLowerCase()).includes(parsed.scheme)) throw new VmhubError('POLICY_DENIED', `scheme "${parsed.scheme}" is not allowed; allowed: ${policy.allowed_schemes.join(', ')} (clone.allowed_schemes)`);
  if (policy.allowed_hosts.length && !policy.allowed_hosts.some((h) => canonicalHost(h) === parsed.host)) throw new VmhubError('POLICY_DENIED', `host "${parsed.host}" is not allowed; allowed: ${policy.allowed_hosts.join(', ')} (clone.allowed_hosts)`);
  if (parsed.literal) checkAddress(parsed.literal, policy);
  else if (!policy.allow_private_hosts && isLoopbackName(parsed.host)) throw new VmhubError('POLICY_DENIED', `host "${parsed.host}" is a loopback or private name (localhost, *.localhost, *.local): vm_clone_repo refuses it (${ALLOW_PRIVATE})`);
  return parsed;
}

/** The synchronous part of the policy, as `{scheme, host}` (host canonical: lower case, IP literals normalised). */
export function checkCloneUrl(url: string, policy: CloneConfig): { scheme: string; host: string } {
  const parsed = checkParsed(url, policy);
  return { scheme: parsed.scheme, host: parsed.host };
}

/** The whole policy: checkParsed, then every address the host resolves to. */
export async function resolveCloneTarget(url: string, policy: CloneConfig, lookup: Lookup, timeoutMs: number): Promise<CloneTarget> {
  const parsed = checkParsed(url, policy);
  const port = defaultPort(parsed);
  if (parsed.form === 'local') return { url: parsed, port, addresses: [] };
  if (parsed.literal) return { url: parsed, port, addresses: [formatAddress(parsed.literal)] };
  const found = await withTimeout(lookup(parsed.host), timeoutMs, parsed.host).catch((err: unknown) => {
    if (err instanceof VmhubError) throw err;
    const code = (err as { code?: string }).code;
    const temporary = code === 'EAI_AGAIN' || code === 'ETIMEOUT';
    throw new VmhubError('NOT_FOUND', `host "${parsed.host}" does not resolve on the vmhub host (${code ?? String(err)})`, { retryable: temporary, cause: err });
  });
  const addresses: string[] = [];
  for (const text of found) {
    const bytes = parseAddress(text);
    if (!bytes) throw new VmhubError('POLICY_DENIED', `host "${parsed.host}" resolves to "${text}", which vmhub cannot read as an address`);
    checkAddress(bytes, policy, parsed.host);
    addresses.push(formatAddress(bytes));
  }
  if (!addresses.length) throw new VmhubError('NOT_FOUND', `host "${parsed.host}" resolves to no address on the vmhub host`);
  return { url: parsed, port, addresses: [...new Set(addresses)] };
}

/** `via`: the name that resolved to `bytes`, or undefined when the URL wrote the address itself. */
function checkAddress(bytes: Bytes, policy: CloneConfig, via?: string): void {
  const range = specialRange(bytes);
  if (!range) return;
  const address = formatAddress(bytes);
  const subject = via === undefined ? `host "${address}" is ${range.name}` : `host "${via}" resolves to ${address} (${range.name})`;
  if (range.kind === 'never') throw new VmhubError('POLICY_DENIED', `${subject}: vm_clone_repo never connects to unspecified, multicast or broadcast addresses`);
  if (!policy.allow_private_hosts) throw new VmhubError('POLICY_DENIED', `${subject}, a loopback or private address: vm_clone_repo refuses it (${ALLOW_PRIVATE})`);
}

/** RFC 6761 loopback names and mDNS names, refused whatever the resolver says. */
function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === 'local' || host.endsWith('.local');
}

function withTimeout<T>(p: Promise<T>, ms: number, host: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new VmhubError('TIMEOUT', `resolving "${host}" took longer than ${Math.round(ms / 1000)} s (clone.timeout_seconds)`)), ms); });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}
