/**
 * Clone URLs parsed the way git reads them (transport.c, connect.c), with one rule added: the
 * authority must be unambiguous. Git percent-decodes git:// and ssh:// URLs before it looks for
 * the host, curl and the WHATWG parser disagree about `\`, `#@` and `%`, so any authority
 * outside a plain host name, bracketed IPv6 literal and port is refused instead of guessed at.
 */
import { VmhubError } from '@vmhub/core';
import { scrubText } from '../scrub.ts';
import { formatAddress, looksNumeric, parseIPv4, parseIPv6, type Bytes } from './address.ts';

export interface CloneUrl {
  /** `url`: scheme://…; `scp`: [user@]host:path (ssh); `local`: a path or file://. */
  form: 'url' | 'scp' | 'local';
  /** Lower case as written (`git+ssh` stays), `ssh` for the scp form, `file` for local paths. */
  scheme: string;
  /** How git reaches the host: curl (remote-curl), its own TCP client, ssh, or another remote helper. */
  transport: 'curl' | 'git' | 'ssh' | 'helper' | 'local';
  /** ssh only: the login name. */
  user?: string;
  /** Lower case, no trailing dot; an IP address in canonical form when written as one. */
  host: string;
  /** The address when the host is an IP literal, in any spelling the resolver accepts. */
  literal?: Bytes;
  /** As written; undefined means the scheme's default. */
  port?: number;
  /** Everything after the authority (url form: starts with "/"; scp form: after the ":"); local: the URL as written. */
  path: string;
}

const TRANSPORTS: Record<string, CloneUrl['transport']> = { http: 'curl', https: 'curl', ftp: 'curl', ftps: 'curl', git: 'git', ssh: 'ssh', 'git+ssh': 'ssh', 'ssh+git': 'ssh' };
const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, ftp: 21, ftps: 990, git: 9418, ssh: 22, 'git+ssh': 22, 'ssh+git': 22 };

// Errors quote the URL with its userinfo and query values as `***` (scrub.ts): an error ends up in logs and transcripts.
const invalid = (url: string, why: string) => new VmhubError('INVALID_REQUEST', `url "${scrubText(url)}" ${why}; vm_clone_repo takes https://host/path, ssh://[user@]host[:port]/path, git://host/path or user@host:path`);

export function schemePort(scheme: string): number | undefined {
  return DEFAULT_PORTS[scheme];
}

/** The port git connects to. */
export function defaultPort(u: Pick<CloneUrl, 'port' | 'scheme'>): number | undefined {
  return u.port ?? DEFAULT_PORTS[u.scheme];
}

export function parseCloneUrl(url: string): CloneUrl {
  if (url.startsWith('-')) throw new VmhubError('INVALID_REQUEST', 'url must not start with "-"');
  if (/[\s\0-\x1f\x7f]/.test(url)) throw new VmhubError('INVALID_REQUEST', 'url must not contain whitespace or control characters');
  if (url === '') throw invalid(url, 'is empty');
  // <transport>::<address> runs git-remote-<transport> on an address vmhub cannot check.
  const helper = /^([A-Za-z][A-Za-z0-9+.-]*)::/.exec(url);
  if (helper) throw new VmhubError('POLICY_DENIED', `url "${scrubText(url)}" uses git's remote-helper syntax (${helper[1]}::…), which vm_clone_repo refuses: its address cannot be checked`);
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  if (colon < 0 || (slash >= 0 && slash < colon)) return { form: 'local', scheme: 'file', transport: 'local', host: '', path: url };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(url);
  if (scheme) {
    const name = scheme[1]!.toLowerCase();
    if (name === 'file') return { form: 'local', scheme: 'file', transport: 'local', host: '', path: url };
    const rest = url.slice(scheme[0].length);
    const end = rest.indexOf('/');
    if (end < 0) throw invalid(url, 'has no path after the host');
    const { user, hostPort } = splitUser(url, rest.slice(0, end), name);
    const { host, literal, port } = parseHostPort(url, hostPort);
    return { form: 'url', scheme: name, transport: TRANSPORTS[name] ?? 'helper', ...(user ? { user } : {}), host, ...(literal ? { literal } : {}), ...(port ? { port } : {}), path: rest.slice(end) };
  }
  // scp-like: [user@]host:path, or [user@][v6]:path. The host ends at the first ":" outside brackets.
  const scp = /^(?:([^@/[\]:]*)@)?(\[[^\]]*\]|[^:[\]]*):(.*)$/s.exec(url);
  if (!scp || scp[3] === '') throw invalid(url, 'is not a git URL');
  const user = scp[1];
  if (user !== undefined && !/^[A-Za-z0-9._][A-Za-z0-9._-]*$/.test(user)) throw invalid(url, 'has a user name vmhub does not accept (letters, digits, ".", "_", "-")');
  const { host, literal } = parseHost(url, scp[2]!);
  return { form: 'scp', scheme: 'ssh', transport: 'ssh', ...(user ? { user } : {}), host, ...(literal ? { literal } : {}), path: scp[3]! };
}

function splitUser(url: string, authority: string, scheme: string): { user?: string; hostPort: string } {
  const at = authority.lastIndexOf('@');
  if (at < 0) return { hostPort: authority };
  if (TRANSPORTS[scheme] !== 'ssh') throw new VmhubError('INVALID_REQUEST', 'url must not carry credentials: configure them on the host (clone.credentials), never in tool arguments');
  const user = authority.slice(0, at);
  if (!/^[A-Za-z0-9._][A-Za-z0-9._-]*$/.test(user)) throw invalid(url, 'has a user name vmhub does not accept (letters, digits, ".", "_", "-"; no password)');
  return { user, hostPort: authority.slice(at + 1) };
}

function parseHostPort(url: string, hostPort: string): { host: string; literal?: Bytes; port?: number } {
  const m = /^(\[[^\]]*\]|[^:]*)(?::([^:]*))?$/.exec(hostPort);
  if (!m) throw invalid(url, 'has an authority vmhub cannot read unambiguously');
  let port: number | undefined;
  if (m[2] !== undefined) {
    if (!/^[0-9]{1,5}$/.test(m[2]) || Number(m[2]) < 1 || Number(m[2]) > 65535) throw invalid(url, `has port "${m[2]}", not a number from 1 to 65535`);
    port = Number(m[2]);
  }
  return { ...parseHost(url, m[1]!), ...(port ? { port } : {}) };
}

/** Canonical host: lower case, one trailing dot dropped, IP literals (every spelling) as addresses. */
export function parseHost(url: string, raw: string): { host: string; literal?: Bytes } {
  if (raw.startsWith('[')) {
    const bytes = raw.endsWith(']') ? parseIPv6(raw.slice(1, -1)) : undefined;
    if (!bytes) throw invalid(url, `has "${raw}", not an IPv6 address vmhub accepts (no zone ids)`);
    return { host: formatAddress(bytes), literal: bytes };
  }
  const host = raw.toLowerCase().replace(/\.$/, '');
  if (host === '' || host.length > 253 || !/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(host)) {
    throw invalid(url, `has host "${raw}", not a host name (letters, digits, "-", "_" and dots) or IP address`);
  }
  if (!looksNumeric(host)) return { host };
  const bytes = parseIPv4(host);
  if (!bytes) throw invalid(url, `has host "${raw}", which the resolver would read as a malformed IPv4 address`);
  return { host: formatAddress(bytes), literal: bytes };
}

/** A host as an operator writes it in config (a name, an IP in any spelling, IPv6 with or without brackets), canonical; undefined if it is none. */
export function canonicalHost(host: string): string | undefined {
  try { return parseHost(host, host.includes(':') && !host.startsWith('[') ? `[${host}]` : host).host; } catch { return undefined; }
}

/** The host as it goes into a URL or a curl resolve entry (IPv6 in brackets). */
export function urlHost(u: Pick<CloneUrl, 'host' | 'literal'>): string {
  return u.literal?.length === 16 ? `[${u.host}]` : u.host;
}

/** The URL handed to git: the canonical host, or `address` in its place. */
export function formatCloneUrl(u: CloneUrl, address?: string): string {
  const host = address === undefined ? urlHost(u) : address.includes(':') ? `[${address}]` : address;
  if (u.form === 'local') return u.path;
  const user = u.user ? `${u.user}@` : '';
  if (u.form === 'scp') return `${user}${host}:${u.path}`;
  return `${u.scheme}://${user}${host}${u.port ? `:${u.port}` : ''}${u.path}`;
}
