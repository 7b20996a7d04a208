/**
 * Options of @vmhub/provider-qemu (the provider's entry in the server config, `providers.qemu`).
 * Keys are snake_case like every other vmhub config key. Every field has a default; explicit
 * options beat environment variables, which createRuntime reads. Unknown keys are rejected.
 */
import { Type, type Static } from '@vmhub/core';

export const QemuProviderOptionsSchema = Type.Object({
  /** Per-lease state directories live here. Default `$XDG_STATE_HOME/vmhub/qemu` or `~/.local/state/vmhub/qemu` (env VMHUB_QEMU_STATE_DIR). */
  state_dir: Type.Optional(Type.String({ minLength: 1 })),
  /** The emulator binary. Default `qemu-system-x86_64` from PATH (env VMHUB_QEMU_BINARY). */
  qemu_binary: Type.Optional(Type.String({ minLength: 1 })),
  /** `qemu-img`, for overlays. Default `qemu-img` from PATH (env VMHUB_QEMU_IMG). */
  qemu_img: Type.Optional(Type.String({ minLength: 1 })),
  /** `auto` (KVM when /dev/kvm opens and the CPU has vmx/svm, else TCG), `kvm` or `tcg`. Default `auto` (env VMHUB_QEMU_ACCEL). */
  accel: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('kvm'), Type.Literal('tcg')])),
  /** Machine type. Default `q35`. */
  machine: Type.Optional(Type.String({ minLength: 1 })),
  /** Memory when the template has no resources.memory_mb, MiB. Default 512. */
  default_memory_mb: Type.Optional(Type.Integer({ minimum: 16 })),
  /** Bound for QMP/agent connect + handshake and for each command, ms. Default 10 000. */
  qmp_timeout_ms: Type.Optional(Type.Integer({ minimum: 100 })),
  /** How long destroy waits after QMP `quit`, then after SIGTERM, then after SIGKILL, ms each. Default 5 000. */
  stop_timeout_ms: Type.Optional(Type.Integer({ minimum: 100 })),
  /**
   * Boot leases from a saved VM state (qemu-saved-state.ts) where the template allows it. Default
   * true (env VMHUB_QEMU_SAVED_STATE=0 turns it off); false: every lease cold-boots.
   */
  saved_state: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export type QemuProviderOptions = Static<typeof QemuProviderOptionsSchema>;

/**
 * A template's `provider_options` (documented in docs/providers/qemu.md). Core checks every
 * template against this schema when the server loads its templates, so a typo or a wrong type is
 * refused at startup naming the key; unknown keys are rejected too.
 */
export const QemuTemplateOptionsSchema = Type.Object({
  /** Kernel for direct boot; default: `golden` itself when golden is not a qcow2 disk. Absolute path on the QEMU host. */
  kernel: Type.Optional(Type.String({ minLength: 1 })),
  /** Initrd for direct boot. Absolute path on the QEMU host. */
  initrd: Type.Optional(Type.String({ minLength: 1 })),
  /** Kernel command line for direct boot. */
  append: Type.Optional(Type.String({ minLength: 1 })),
  /** Serial-log string that marks the guest ready. */
  ready_marker: Type.Optional(Type.String({ minLength: 1 })),
  /** Give the guest user-mode networking (`-nic user`). Default false: `-nic none`. */
  network: Type.Optional(Type.Boolean()),
  /**
   * Guest TCP ports reachable from vmhub (Provider.connect: adbd on an Android-x86 VM, Windows-MCP,
   * Screen Sharing): each is forwarded from an ephemeral 127.0.0.1 port on the QEMU host through
   * user-mode networking. Without `network: true` the guest still gets no route out (restrict=on).
   */
  forward_ports: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), { maxItems: 16, uniqueItems: true })),
  /**
   * `{kind: "adb", port}`: adapters get an adb channel (@vmhub/channel-adb) to the guest's adbd on
   * that forwarded guest port (an Android-x86/AOSP VM), instead of the guest-agent channel. The
   * port must be in forward_ports.
   */
  guest_channel: Type.Optional(Type.Object({ kind: Type.Literal('adb'), port: Type.Integer({ minimum: 1, maximum: 65535, default: 5555 }) }, { additionalProperties: false })),
  /** QEMU's own VNC server (ConsoleHandle.openVnc): "password" (default; set per console), "none" (no password) or "off". */
  vnc: Type.Optional(Type.Union([Type.Literal('password'), Type.Literal('none'), Type.Literal('off')])),
  /** Wire a virtio-serial guest agent socket and offer a GuestChannel through it. Default false. */
  guest_agent: Type.Optional(Type.Boolean()),
  /**
   * The guest's desktop user: the guest-agent channel's execs and files act as this user (the
   * agent runs as root; vmhub switches with runuser, else su, inside the guest). Default "root":
   * the tiny-console goldens have no other user.
   */
  user: Type.Optional(Type.String({ minLength: 1, pattern: '^[a-z_][a-z0-9_-]*[$]?$' })),
  /**
   * Per-lease SSH (Provider.sshAccess): at create the provider makes a key pair for the lease,
   * gives the guest the public half for `user` in a cloud-init NoCloud seed (a `cidata` disk,
   * nocloud-seed.ts), forwards guest port `port` (default 22; TCP on 127.0.0.1 like forward_ports,
   * so the template needs `forward_tcp: true`) and waits in ready() until sshd answers there. The
   * golden must read the seed: tiny-console-agent does, so does any cloud-init image. Leases of
   * such a template always cold-boot (no saved state: one saved before the seed existed would
   * carry no key of the lease's own, and the same host key as every other lease).
   */
  ssh: Type.Optional(Type.Object({
    user: Type.String({ minLength: 1, pattern: '^[a-z_][a-z0-9_-]*[$]?$' }),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  }, { additionalProperties: false })),
  /**
   * Boot leases from a saved VM state: the golden booted once until ready, saved with QMP
   * `migrate`, and each lease resumed from it (docs/providers/qemu.md). Default true when the
   * template has a readiness probe (ready_marker or guest_agent); false: every lease cold-boots.
   */
  saved_state: Type.Optional(Type.Boolean()),
  /**
   * The golden's init mounts a workspace (vm_lease_create {workspace}): the virtio disk with
   * serial `vmhub-ws` at the path `vmhub_ws=` names on the kernel command line (qemu-workspace.ts).
   * tiny-console's does. Default false: leases of the template take no workspace.
   */
  workspace_disk: Type.Optional(Type.Boolean()),
  /** Shown when the golden is missing. */
  build_hint: Type.Optional(Type.String({ minLength: 1 })),
}, { additionalProperties: false });

export type QemuTemplateOptions = Static<typeof QemuTemplateOptionsSchema>;

/**
 * A template's provider_options as the provider reads them. Core validated them against
 * QemuTemplateOptionsSchema when the templates loaded; this only types them and fills the
 * boolean defaults.
 */
export function templateOptions(raw: Record<string, unknown> | undefined): QemuTemplateOptions {
  const o = (raw ?? {}) as QemuTemplateOptions;
  return { ...o, network: o.network === true, guest_agent: o.guest_agent === true };
}
