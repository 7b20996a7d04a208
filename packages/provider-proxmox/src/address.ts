/**
 * Which guest address to dial: the first usable IPv4 the guest agent reports, skipping loopback,
 * link-local, unspecified and container/bridge interfaces (docker0, veth*, br-*, virbr*, cni*).
 */
export interface AgentInterface {
  name?: string;
  'ip-addresses'?: { 'ip-address'?: string; 'ip-address-type'?: string; prefix?: number }[];
}

const SKIP_IFACE = /^(lo|docker\d*|veth.*|br-.*|virbr.*|cni.*|flannel.*|cali.*|podman.*|tailscale.*)$/;

export function isUsableIpv4(ip: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  if (m.slice(1).some((p) => Number(p) > 255)) return false;
  if (a === 127 || a === 0 || a >= 224) return false; // loopback, unspecified, multicast/reserved
  if (a === 169 && b === 254) return false; // link-local
  return true;
}

export function pickAddress(interfaces: AgentInterface[] | undefined): string | undefined {
  for (const iface of interfaces ?? []) {
    if (iface.name && SKIP_IFACE.test(iface.name)) continue;
    for (const addr of iface['ip-addresses'] ?? []) {
      if (addr['ip-address-type'] === 'ipv4' && addr['ip-address'] && isUsableIpv4(addr['ip-address'])) return addr['ip-address'];
    }
  }
  return undefined;
}

/** `host`, `host:port` or `[v6]:port` → host and port (default `defaultPort`). */
export function parseHostPort(value: string, defaultPort: number): { host: string; port: number } {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (v6) return { host: v6[1], port: v6[2] ? Number(v6[2]) : defaultPort };
  const m = /^([^:]+)(?::(\d+))?$/.exec(value);
  if (!m) throw new TypeError(`"${value}" is not host or host:port`);
  return { host: m[1], port: m[2] ? Number(m[2]) : defaultPort };
}
