/**
 * IP addresses for the clone guard: parse every spelling the host's resolver accepts, and say
 * which special-purpose range an address falls in. The guard decides on these bytes, never on
 * how a host was written (`127.1`, `0x7f.1`, `2130706433` and `[::ffff:127.0.0.1]` are all
 * 127.0.0.1 to git).
 */

export type Bytes = readonly number[];

/**
 * inet_aton(3), which glibc's getaddrinfo (and so git, curl and Node) applies to numeric hosts:
 * 1 to 4 parts, each decimal, octal (leading 0) or hex (0x); the last part fills the remaining
 * bytes. Undefined when `text` is not such a spelling.
 */
export function parseIPv4(text: string): Bytes | undefined {
  const parts = text.split('.');
  if (parts.length < 1 || parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]+$/i.test(part)) value = parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) value = parseInt(part, 8);
    else if (/^[1-9][0-9]*$/.test(part)) value = parseInt(part, 10);
    else return undefined;
    if (!Number.isSafeInteger(value)) return undefined;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return undefined;
  const tail: number[] = [];
  for (let i = 4 - values.length, v = last; i > 0; i--, v = Math.floor(v / 256)) tail.unshift(v % 256);
  return [...values, ...tail];
}

/** True when a host name would be read as a number by the resolver (its last label is numeric). */
export function looksNumeric(host: string): boolean {
  return /(^|\.)(0x[0-9a-f]*|[0-9]+)$/i.test(host);
}

/** RFC 4291 text form (with an optional trailing dotted quad) to 16 bytes; no zone ids. */
export function parseIPv6(text: string): Bytes | undefined {
  if (!/^[0-9a-f:.]+$/i.test(text) || text.split('::').length > 2) return undefined;
  let groups = text;
  const quad = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let tail: number[] = [];
  if (quad) {
    const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(quad[2]!);
    if (!v4 || v4.slice(1).some((p) => Number(p) > 255 || (p.length > 1 && p.startsWith('0')))) return undefined;
    tail = v4.slice(1).map(Number);
    groups = quad[1]!.endsWith('::') ? quad[1]! : quad[1]!.slice(0, -1);
  }
  const [head, rest] = groups.split('::') as [string, string | undefined];
  const split = (s: string) => (s === '' ? [] : s.split(':'));
  const left = split(head);
  const right = rest === undefined ? [] : split(rest);
  const want = 8 - tail.length / 2;
  if ([...left, ...right].some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  // Without `::` every group is written; with it, `::` stands for one or more zero groups.
  if (rest === undefined ? left.length !== want : left.length + right.length > want - 1) return undefined;
  const words = [...left, ...Array(want - left.length - right.length).fill('0'), ...right].map((g) => parseInt(g, 16));
  return [...words.flatMap((w) => [w >> 8, w & 255]), ...tail];
}

export function formatIPv4(bytes: Bytes): string {
  return bytes.join('.');
}

/** RFC 5952 form: lower case, the longest run of zero groups (two or more) as `::`. */
export function formatIPv6(bytes: Bytes): string {
  const words = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  let best = { at: -1, len: 1 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > best.len) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = words.map((w) => w.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.len).join(':')}`;
}

/** Any textual address (as dns.lookup returns it, zone ids allowed) to bytes. */
export function parseAddress(text: string): Bytes | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) {
    const bytes = text.split('.').map(Number);
    return bytes.every((b) => b <= 255) ? bytes : undefined;
  }
  return parseIPv6(text.replace(/%.*$/, ''));
}

export function formatAddress(bytes: Bytes): string {
  return bytes.length === 4 ? formatIPv4(bytes) : formatIPv6(bytes);
}

/**
 * `never`: nobody clones from it, even with clone.allow_private_hosts (unspecified, multicast,
 * broadcast); `private`: loopback, private, link-local, shared and other non-global ranges,
 * which clone.allow_private_hosts lets through.
 */
export interface SpecialRange { name: string; kind: 'never' | 'private' }

/**
 * `embedded-v4`: the range carries an IPv4 address (`v4at`: its first byte's index) and is judged
 * by it; `otherwise`: the kind when that IPv4 address is global (default: global, reachable
 * through a translator as the IPv4 address itself would be).
 */
type Rule = [prefix: string, bits: number, name: string, kind: SpecialRange['kind'] | 'embedded-v4', v4at?: number, otherwise?: SpecialRange['kind']];

// IANA IPv4/IPv6 special-purpose registries, the ranges that are not globally reachable.
const V4: Rule[] = [
  ['0.0.0.0', 8, 'unspecified ("this network")', 'never'],
  ['10.0.0.0', 8, 'private', 'private'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)', 'private'],
  ['127.0.0.0', 8, 'loopback', 'private'],
  ['169.254.0.0', 16, 'link-local', 'private'],
  ['172.16.0.0', 12, 'private', 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments', 'private'],
  ['192.0.2.0', 24, 'documentation', 'private'],
  ['192.88.99.0', 24, '6to4 relay anycast', 'private'],
  ['192.168.0.0', 16, 'private', 'private'],
  ['198.18.0.0', 15, 'benchmarking', 'private'],
  ['198.51.100.0', 24, 'documentation', 'private'],
  ['203.0.113.0', 24, 'documentation', 'private'],
  ['224.0.0.0', 4, 'multicast', 'never'],
  ['255.255.255.255', 32, 'broadcast', 'never'],
  ['240.0.0.0', 4, 'reserved', 'private'],
];
const V6: Rule[] = [
  ['::', 128, 'unspecified', 'never'],
  ['::1', 128, 'loopback', 'private'],
  ['::ffff:0:0', 96, 'IPv4-mapped', 'embedded-v4', 12],
  // RFC 2765 SIIT: `::ffff:0:a.b.c.d` reaches a.b.c.d through a translator.
  ['::ffff:0:0:0', 96, 'IPv4-translated', 'embedded-v4', 12],
  // RFC 4291 §2.5.5.1, deprecated: `::a.b.c.d` (a sit tunnel sends it to a.b.c.d); never global.
  ['::', 96, 'IPv4-compatible (deprecated)', 'embedded-v4', 12, 'private'],
  ['64:ff9b::', 96, 'NAT64', 'embedded-v4', 12],
  ['64:ff9b:1::', 48, 'local-use NAT64', 'private'],
  ['100::', 64, 'discard-only', 'private'],
  ['2001:db8::', 32, 'documentation', 'private'],
  ['2001::', 23, 'IETF protocol assignments', 'private'],
  ['2002::', 16, '6to4', 'embedded-v4', 2],
  ['3fff::', 20, 'documentation', 'private'],
  ['fc00::', 7, 'unique local', 'private'],
  ['fe80::', 10, 'link-local', 'private'],
  ['fec0::', 10, 'site-local (deprecated)', 'private'],
  ['ff00::', 8, 'multicast', 'never'],
];

function inPrefix(bytes: Bytes, prefix: Bytes, bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const bit = (b: Bytes) => (b[i >> 3]! >> (7 - (i & 7))) & 1;
    if (bit(bytes) !== bit(prefix)) return false;
  }
  return true;
}

const COMPILED = {
  4: V4.map(([p, bits, name, kind, v4at, otherwise]) => ({ prefix: parseIPv4(p)!, bits, name, kind, v4at, otherwise })),
  16: V6.map(([p, bits, name, kind, v4at, otherwise]) => ({ prefix: parseIPv6(p)!, bits, name, kind, v4at, otherwise })),
};

/**
 * The special range an address is in, or undefined if global. IPv4 embedded in IPv6 (mapped,
 * translated, compatible, NAT64 in the last 4 bytes; 6to4 in bytes 2..5) is judged as that IPv4
 * address: `::ffff:0:127.0.0.1`, `64:ff9b::7f00:1` and `::127.0.0.1` are all loopback.
 */
export function specialRange(bytes: Bytes): SpecialRange | undefined {
  const rules = bytes.length === 4 ? COMPILED[4] : COMPILED[16];
  for (const rule of rules) {
    if (!inPrefix(bytes, rule.prefix, rule.bits)) continue;
    if (rule.kind !== 'embedded-v4') return { name: rule.name, kind: rule.kind };
    const v4 = bytes.slice(rule.v4at!, rule.v4at! + 4);
    const inner = specialRange(v4);
    if (inner) return { name: `${inner.name} (${rule.name} ${formatIPv4(v4)})`, kind: inner.kind };
    return rule.otherwise && { name: `${rule.name} ${formatIPv4(v4)}`, kind: rule.otherwise };
  }
  return undefined;
}
