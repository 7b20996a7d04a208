/**
 * `provider_options` of a Proxmox template: where it may run, how it is cloned and reached.
 * Core checks templates against the schema when the server loads them (an unknown key is refused,
 * naming it); templateOptions() reads them with defaults filled.
 */
import { assertValid, Type, type Static, type TemplateConfig } from '@vmhub/core';
import { SOURCE } from './pve-errors.ts';

export const ProxmoxTemplateOptionsSchema = Type.Object({
  /** Proxmox node names the clone may run on. Default: any node holding the golden template. */
  nodes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** vmhub endpoint ids (VMHUB_NODES entries) the clone may use. Default: all. */
  endpoints: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** Full clone instead of a linked clone. Default false. */
  full_clone: Type.Boolean({ default: false }),
  /** Target storage (full clones only). */
  storage: Type.Optional(Type.String({ minLength: 2 })),
  /** Pool the clone joins (its ACLs then apply). */
  pool: Type.Optional(Type.String({ minLength: 1 })),
  /** Cloud-init user for the per-lease key. Default: the provider's `ciuser` ("vmhub"). */
  ciuser: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * Whose rights the guest-agent channel's execs and files use (the agent itself runs as root;
   * vmhub switches with `runuser -u`). Default: the cloud-init user (`ciuser`). "root" runs as the
   * agent's own user: for goldens without that user or without runuser.
   */
  agent_user: Type.Optional(Type.String({ minLength: 1, pattern: '^[a-z_][a-z0-9_-]*[$]?$' })),
  /** Guest channel: "ssh" (default), "agent" (QEMU guest agent exec/file API) or "adb" (an Android-x86/AOSP VM's adbd on adb_port). */
  channel: Type.Union([Type.Literal('ssh'), Type.Literal('agent'), Type.Literal('adb')], { default: 'ssh' }),
  /** adbd's TCP port in the guest, for channel "adb". Default 5555. */
  adb_port: Type.Integer({ minimum: 1, maximum: 65535, default: 5555 }),
  /** SSH port in the guest. Default 22. */
  ssh_port: Type.Integer({ minimum: 1, maximum: 65535, default: 22 }),
  /** Dial this `host[:port]` instead of the agent-reported address (tests, port forwards). */
  address_override: Type.Optional(Type.String({ minLength: 1 })),
  /** Reach the guest through this SSH jump host. */
  ssh_jump: Type.Optional(Type.Object({
    host: Type.String({ minLength: 1 }),
    port: Type.Integer({ minimum: 1, maximum: 65535, default: 22 }),
    user: Type.String({ minLength: 1 }),
    private_key_path: Type.String({ minLength: 1 }),
  }, { additionalProperties: false })),
  /** cloud-init `ipconfig0`, e.g. "ip=dhcp". Default: keep the template's. */
  ipconfig0: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * The golden mounts a workspace disk (vm_lease_create {workspace}): the virtio disk with serial
   * `vmhub-ws` (/dev/disk/by-id/virtio-vmhub-ws) at the template's workspace_path, formatting it
   * when blank (proxmox-workspace.ts). Default false: the template takes no workspace.
   */
  workspace_disk: Type.Optional(Type.Boolean()),
  /** Storage a new workspace disk is allocated on. Default: `storage`, else local-lvm. */
  workspace_storage: Type.Optional(Type.String({ minLength: 2 })),
  /** Size of a new workspace disk (GiB). Default 8. */
  workspace_size_gb: Type.Optional(Type.Integer({ minimum: 1, maximum: 65536 })),
  /** Refuse nodes with less free memory than this (MiB). Default: the template's memory_mb, else 0. */
  min_free_memory_mb: Type.Optional(Type.Integer({ minimum: 0 })),
}, { additionalProperties: false });

export type ProxmoxTemplateOptions = Static<typeof ProxmoxTemplateOptionsSchema>;

export function templateOptions(template: TemplateConfig): ProxmoxTemplateOptions {
  return assertValid<ProxmoxTemplateOptions>(ProxmoxTemplateOptionsSchema, structuredClone(template.provider_options ?? {}), `[vmhub] [${SOURCE}] template "${template.id}" provider_options`, SOURCE);
}

/** The tag form of an identity: Proxmox lower-cases tags and allows `[a-z0-9_][a-z0-9_+.-]*`. */
export function identityTag(identity: string): string {
  return identity.toLowerCase().replace(/[^a-z0-9_+.-]/g, '_');
}

/** A VM name (dns-name) for the lease: `vmhub-<lease start>`; the tag carries the full identity. */
export function vmName(identity: string): string {
  const s = identity.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/-+/g, '-').replace(/^-|-$/g, '');
  return s.slice(0, 63).replace(/-$/, '') || 'vmhub';
}
