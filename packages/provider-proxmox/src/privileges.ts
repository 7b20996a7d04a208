/**
 * Rights discovery: what the token may do, read from `/access/permissions`, against what a template
 * needs. Privilege names differ by major version: PVE 8 guards the guest agent with `VM.Monitor`,
 * PVE 9 with `VM.GuestAgent.*` (VM.Monitor was removed in 9.0).
 */
export type PermissionMap = Record<string, Record<string, number>>;

export interface Requirement {
  /** Any one of these privileges satisfies the requirement. */
  anyOf: string[];
  path: string;
  why: string;
}

export interface NeedsInput {
  major: number;
  templateVmid: number;
  pool?: string;
  storages: string[];
  /** SDN paths of the template's NICs (`/sdn/zones/localnetwork/vmbr0[/<vlan>]`). */
  bridges?: string[];
  channel: 'ssh' | 'agent';
  cpus?: boolean;
  memory?: boolean;
}

export function requirements(input: NeedsInput): Requirement[] {
  const vmPath = input.pool ? `/pool/${input.pool}` : '/vms';
  const out: Requirement[] = [
    { anyOf: ['VM.Clone'], path: `/vms/${input.templateVmid}`, why: 'clone the golden template' },
    { anyOf: ['VM.Allocate'], path: vmPath, why: 'create and destroy the clone' },
    { anyOf: ['VM.Audit'], path: vmPath, why: 'read the clone\'s config and tags' },
    { anyOf: ['VM.Config.Options'], path: vmPath, why: 'set the identity tag, name and description' },
    { anyOf: ['VM.Config.Cloudinit', 'VM.Config.Network'], path: vmPath, why: 'install the per-lease SSH key (cloud-init)' },
    { anyOf: ['VM.PowerMgmt'], path: vmPath, why: 'start and stop the clone' },
  ];
  for (const s of input.storages.length ? input.storages : ['']) {
    out.push({ anyOf: ['Datastore.AllocateSpace'], path: s ? `/storage/${s}` : '/storage', why: 'allocate the clone\'s disks' });
  }
  for (const b of input.bridges ?? []) out.push({ anyOf: ['SDN.Use'], path: b, why: 'attach the clone\'s network interface to its bridge' });
  if (input.cpus) out.push({ anyOf: ['VM.Config.CPU'], path: vmPath, why: 'set the template\'s cpus' });
  if (input.memory) out.push({ anyOf: ['VM.Config.Memory'], path: vmPath, why: 'set the template\'s memory' });
  if (input.major >= 9) {
    out.push({ anyOf: ['VM.GuestAgent.Audit', 'VM.GuestAgent.Unrestricted'], path: vmPath, why: 'ask the guest agent for readiness and addresses' });
    if (input.channel === 'agent') {
      out.push({ anyOf: ['VM.GuestAgent.Unrestricted'], path: vmPath, why: 'run commands and move files through the guest agent' });
    }
  } else {
    out.push({ anyOf: ['VM.Monitor'], path: vmPath, why: 'use the guest agent (PVE 8 guards it with VM.Monitor)' });
  }
  return out;
}

/** Does the effective permission map grant `priv` on `path` (directly or inherited with propagate)? */
export function hasPrivilege(perms: PermissionMap, path: string, priv: string): boolean {
  const exact = perms[path];
  if (exact && priv in exact) return true;
  const parts = path.split('/').filter(Boolean);
  for (let i = parts.length - 1; i >= 0; i--) {
    const ancestor = `/${parts.slice(0, i).join('/')}`;
    if (perms[ancestor]?.[priv] === 1) return true;
  }
  // `/storage/<id>` may be granted on any storage id for a path-less check.
  if (path === '/storage') return Object.entries(perms).some(([p, v]) => p.startsWith('/storage/') && priv in v);
  return false;
}

export function missing(perms: PermissionMap, reqs: Requirement[]): Requirement[] {
  return reqs.filter((r) => !r.anyOf.some((p) => hasPrivilege(perms, r.path, p)));
}

export function describeMissing(tokenId: string, gaps: Requirement[]): string {
  return gaps.map((g) => `${g.anyOf.join(' or ')} on ${g.path} (to ${g.why})`).join('; ') + ` — token ${tokenId} lacks it: grant it (node_modules/@vmhub/server/docs/setup-proxmox.md)`;
}

/** Storage ids of the template's disks (`scsi0: local-lvm:base-9000-disk-0,size=8G`). */
export function diskStorages(config: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const [key, value] of Object.entries(config)) {
    if (!/^(scsi|virtio|sata|ide|efidisk|tpmstate)\d+$/.test(key) || typeof value !== 'string') continue;
    if (/media=cdrom/.test(value) || value.startsWith('none')) continue;
    const m = /^([a-zA-Z][a-zA-Z0-9\-_.]*[a-zA-Z0-9]):/.exec(value);
    if (m) out.add(m[1]);
  }
  return [...out];
}

/** SDN permission paths of the template's NICs: plain bridges live in the `localnetwork` zone. */
export function bridgePaths(config: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const [key, value] of Object.entries(config)) {
    if (!/^net\d+$/.test(key) || typeof value !== 'string') continue;
    const bridge = /(?:^|,)bridge=([^,]+)/.exec(value)?.[1];
    const vlan = /(?:^|,)tag=(\d+)/.exec(value)?.[1];
    if (bridge) out.add(`/sdn/zones/localnetwork/${bridge}${vlan ? `/${vlan}` : ''}`);
  }
  return [...out];
}
