/**
 * Template configuration: what the operator writes in the config file (or what a plugin ships
 * as a default). A template names a provider, a golden reference, an adapter and resources.
 */
import { Type, type Static } from '@sinclair/typebox';

export const TemplateConfigSchema = Type.Object({
  /** Template id agents pass to vm_lease_create. */
  id: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._-]+$' }),
  /** Provider plugin id (docker, qemu, proxmox, fake). */
  provider: Type.String({ minLength: 1 }),
  /** Adapter plugin id (x11, console, fake). */
  adapter: Type.String({ minLength: 1 }),
  /** OS family shown to agents (linux, windows, macos, android, any). */
  os: Type.String({ default: 'linux' }),
  /** Golden reference: Docker image, qcow2 path, Proxmox template VMID or name. */
  golden: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  /**
   * A stand-in for an OS that cannot run on the host (a real protocol peer in a container, not
   * the OS itself). Listed only when config `standin_templates` (env VMHUB_STANDIN_TEMPLATES=1)
   * is on; its description says what it stands in for.
   */
  standin: Type.Optional(Type.Boolean()),
  /** Resources for the machine. */
  resources: Type.Optional(Type.Object({
    cpus: Type.Optional(Type.Number({ minimum: 0.1, maximum: 256 })),
    memory_mb: Type.Optional(Type.Integer({ minimum: 16, maximum: 1048576 })),
    disk_gb: Type.Optional(Type.Integer({ minimum: 1 })),
  })),
  /** Seconds a lease on this template may take to become ready. Default 300. */
  ready_timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
  /**
   * Host-held clone credentials for leases of this template, by URL host; they win over the
   * server-wide `clone.credentials`. The token is read from the named env var on the vmhub host,
   * never from tool arguments.
   */
  clone_credentials: Type.Optional(Type.Record(Type.String(), Type.Object({ username: Type.Optional(Type.String()), token_env: Type.String() }))),
  /**
   * What a per-lease GitHub token (vm_clone_repo {push: true}) may do beyond `contents: write` on
   * its one repository: `pull_requests` adds `pull_requests: write`. Default none.
   */
  github_permissions: Type.Optional(Type.Array(Type.Union([Type.Literal('pull_requests')]), { uniqueItems: true })),
  /**
   * Guest port forwards (LeaseContext.forward) listen on TCP 127.0.0.1 instead of a unix socket
   * in a 0700 directory. Any local user of the vmhub host can then connect to the machine's
   * forwarded ports (an adbd, Windows-MCP): only for clients that cannot dial a unix socket.
   * Default false (docs/security.md, "Guest port forwards").
   */
  forward_tcp: Type.Optional(Type.Boolean()),
  /**
   * Where a workspace (vm_lease_create {workspace}) is mounted in the guest; default the
   * provider's guest user's home.
   */
  workspace_path: Type.Optional(Type.String({ pattern: '^/[^\\0]*$', maxLength: 256 })),
  /** Provider-specific settings (network, display size, node constraints, ...). */
  provider_options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** Adapter-specific settings. */
  adapter_options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type TemplateConfig = Static<typeof TemplateConfigSchema>;
