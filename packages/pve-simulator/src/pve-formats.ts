/**
 * PVE's named formats. Their rules live in the Perl sources, not in the schema file, so each one
 * a VM provider meets is re-stated here (rules from pve-common JSONSchema.pm, pve-guest-common,
 * pve-access-control as summarised in shared/reference/proxmox-api.md section 2). A format not
 * listed here is accepted and counted, so a test can see which formats went unchecked.
 */
import { isIP } from 'node:net';

/** Returns undefined when valid, else the detail PVE prints after `invalid format - `. */
export type FormatCheck = (value: string) => string | undefined;

const re = (r: RegExp, what: string): FormatCheck => (v) => (r.test(v) ? undefined : `value does not look like a valid ${what}`);

const NODE = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
const VMID = /^[1-9][0-9]{2,8}$/;
const CONFIGID = /^[a-z][a-z0-9_-]+$/i;
const STORAGEID = /^[a-z][a-z0-9\-_.]*[a-z0-9]$/i;
const POOLID = /^[A-Za-z0-9.\-_]+(?:\/[A-Za-z0-9.\-_]+){0,2}$/;
const TAG = /^[a-z0-9_][a-z0-9_\-+.]*$/i;
const DNS_LABEL = /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/;
const URLENCODED = /^[-%a-zA-Z0-9_.!~*'()]*$/;
const BRIDGE = /^[-_.\w\d]+$/;
const USERID = /^[^\s:/]+@[A-Za-z][A-Za-z0-9.\-_]+$/;
const TOKENID = /^[^\s:/]+@[A-Za-z][A-Za-z0-9.\-_]+![A-Za-z][A-Za-z0-9.\-_]+$/;
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;
const VOLUME_ID = /^[a-z][a-z0-9\-_.]*[a-z0-9]:.+$/i;

/** Splits like PVE::Tools::split_list: `,`, `;`, whitespace and NUL, empty entries dropped. */
export function splitList(v: string): string[] {
  return v.split(/[\s,;\0]+/).filter((s) => s !== '');
}

const list = (one: FormatCheck): FormatCheck => (v) => {
  for (const item of splitList(v)) {
    const e = one(item);
    if (e) return e;
  }
  return undefined;
};

const vmid: FormatCheck = (v) => (VMID.test(v) ? undefined : 'value does not look like a valid VM ID');
const node: FormatCheck = (v) => (NODE.test(v) ? undefined : 'value does not look like a valid node name');
const storageId: FormatCheck = (v) => (STORAGEID.test(v) ? undefined : `storage ID '${v}' contains illegal characters`);
const configId: FormatCheck = (v) => (CONFIGID.test(v) ? undefined : `invalid configuration ID '${v}'`);
const tag: FormatCheck = (v) => (TAG.test(v) ? undefined : 'invalid characters in tag');
const dnsName: FormatCheck = (v) =>
  v.split('.').every((l) => DNS_LABEL.test(l)) ? undefined : 'value does not look like a valid DNS name';
const ipv4: FormatCheck = (v) => (isIP(v) === 4 ? undefined : `value does not look like a valid IPv4 address`);
const ipv6: FormatCheck = (v) => (isIP(v) === 6 ? undefined : `value does not look like a valid IPv6 address`);
const ip: FormatCheck = (v) => (isIP(v) ? undefined : `value does not look like a valid IP address`);
const cidr = (family: 0 | 4 | 6): FormatCheck => (v) => {
  const [addr, len, extra] = v.split('/');
  const fam = isIP(addr ?? '');
  const max = fam === 6 ? 128 : 32;
  const ok = extra === undefined && fam !== 0 && (family === 0 || fam === family) && /^\d+$/.test(len ?? '') && Number(len) <= max;
  return ok ? undefined : `value does not look like a valid CIDR network`;
};

/** cloud-init `ipconfigN`: gw, gw6, ip (CIDR|dhcp), ip6 (CIDR|dhcp|auto). */
const ipconfig: FormatCheck = (v) => {
  for (const part of v.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return `format error\nip: missing key`;
    const k = part.slice(0, eq);
    const val = part.slice(eq + 1);
    if (k === 'ip') {
      if (val !== 'dhcp' && cidr(4)(val)) return `format error\nip: invalid format - value does not look like a valid IPv4 network configuration`;
    } else if (k === 'ip6') {
      if (val !== 'dhcp' && val !== 'auto' && cidr(6)(val)) return `format error\nip6: invalid format - value does not look like a valid IPv6 network configuration`;
    } else if (k === 'gw') {
      if (ipv4(val)) return `format error\ngw: invalid format - ${ipv4(val)}`;
    } else if (k === 'gw6') {
      if (ipv6(val)) return `format error\ngw6: invalid format - ${ipv6(val)}`;
    } else {
      return `format error\n${k}: property is not defined in schema and the schema does not allow additional properties`;
    }
  }
  return undefined;
};

/** Formats the simulator has no rule for, with how often a value was accepted unchecked (process-wide). */
export const unknownFormatCounts = new Map<string, number>();

/** The named format's rule, or undefined (counted) when the simulator has none. */
export function namedFormat(name: string): FormatCheck | undefined {
  const rule = NAMED_FORMATS[name];
  if (!rule) unknownFormatCounts.set(name, (unknownFormatCounts.get(name) ?? 0) + 1);
  return rule;
}

/** `key=value` lists whose keys come from a fixed set; `defaultKey` takes a bare value. */
const keyed = (keys: Record<string, RegExp>, defaultKey?: string): FormatCheck => (v) => {
  for (const part of v.split(',')) {
    const eq = part.indexOf('=');
    const k = eq < 0 ? defaultKey : part.slice(0, eq);
    const val = eq < 0 ? part : part.slice(eq + 1);
    if (k === undefined || !keys[k]) return `format error\n${k ?? part}: property is not defined in schema and the schema does not allow additional properties`;
    if (!keys[k]!.test(val)) return `format error\n${k}: value does not match the regex pattern`;
  }
  return undefined;
};
const B64 = /^[A-Za-z0-9+/]*={0,2}$/;
const ANY = /^.*$/;

export const NAMED_FORMATS: Record<string, FormatCheck> = {
  string: () => undefined,
  'pve-qm-boot': keyed({ legacy: /^[acdn]{1,4}$/, order: /^[a-z0-9]+(;[a-z0-9]+)*$/ }, 'legacy'),
  'pve-qm-smbios1': keyed({ base64: /^[01]$/, family: B64, manufacturer: B64, product: B64, serial: B64, sku: B64, uuid: /^[a-fA-F0-9]{8}(-[a-fA-F0-9]{4}){3}-[a-fA-F0-9]{12}$/, version: B64 }),
  'pve-startup-order': keyed({ order: /^\d+$/, up: /^\d+$/, down: /^\d+$/ }, 'order'),
  'pve-qm-cicustom': keyed({ meta: VOLUME_ID, network: VOLUME_ID, user: VOLUME_ID, vendor: VOLUME_ID }),
  'pve-vm-cpu-conf': keyed({ cputype: /^[-+_.\w]+$/, flags: /^[-+][\w.-]+(;[-+][\w.-]+)*$/, 'guest-phys-bits': /^\d+$/, hidden: /^[01]$/, 'hv-vendor-id': ANY, 'phys-bits': /^(\d+|host)$/, 'reported-model': ANY }, 'cputype'),
  'pve-hotplug-features': (v) => (/^(0|1|((network|disk|cpu|memory|usb|cloudinit)(,(network|disk|cpu|memory|usb|cloudinit))*))$/.test(v) ? undefined : `invalid hotplug feature`),
  'pve-volume-id-or-qm-path': (v) => (VOLUME_ID.test(v) || v.startsWith('/') || v === 'none' || v === 'cdrom' ? undefined : `invalid volume '${v}'`),
  'disk-size': (v) => (/^\d+(\.\d+)?[KMGT]?$/.test(v) ? undefined : `unable to parse size '${v}'`),
  'pve-node': node,
  'pve-node-list': list(node),
  'pve-vmid': vmid,
  'pve-vmid-list': list(vmid),
  'pve-configid': configId,
  'pve-configid-list': list(configId),
  'pve-storage-id': storageId,
  'pve-storage-id-list': list(storageId),
  'pve-poolid': re(POOLID, 'pool ID'),
  'pve-tag-list': (v) => (splitList(v).length === 0 ? 'no tags given' : list(tag)(v)),
  'dns-name': dnsName,
  'dns-name-list': list(dnsName),
  urlencoded: (v) => (URLENCODED.test(v) ? undefined : `invalid urlencoded string: ${v}`),
  'pve-bridge-id': re(BRIDGE, 'bridge ID'),
  'pve-userid': (v) => (USERID.test(v) && v.length <= 64 ? undefined : `value '${v}' does not look like a valid user name`),
  'pve-tokenid': re(TOKENID, 'token ID'),
  'mac-addr': re(MAC, 'MAC address'),
  'pve-volume-id': (v) => (VOLUME_ID.test(v) ? undefined : `unable to parse volume ID '${v}'`),
  ipv4,
  ipv6,
  ip,
  'ip-list': list(ip),
  address: (v) => (ip(v) === undefined || dnsName(v) === undefined ? undefined : 'value does not look like a valid address'),
  CIDR: cidr(0),
  CIDRv4: cidr(4),
  CIDRv6: cidr(6),
  'pve-qm-ipconfig': ipconfig,
  'string-list': () => undefined,
  'pve-storage-content': re(/^[a-z]+$/, 'storage content type'),
  'pve-storage-content-list': list(re(/^[a-z]+$/, 'storage content type')),
  'pve-task-status-type-list': list(re(/^[a-z]+$/, 'task status type')),
};
