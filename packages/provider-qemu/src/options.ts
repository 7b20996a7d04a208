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
}, { additionalProperties: false });

export type QemuProviderOptions = Static<typeof QemuProviderOptionsSchema>;

/**
 * Per-template settings read from `template.provider_options` (documented in docs/providers/qemu.md).
 */
export interface QemuTemplateOptions {
  /** Kernel for direct boot; default: `golden` itself when golden is not a qcow2 disk. */
  kernel?: string;
  initrd?: string;
  append?: string;
  /** Serial-log string that marks the guest ready. */
  ready_marker?: string;
  /** Give the guest user-mode networking (`-nic user`). Default false: `-nic none`. */
  network?: boolean;
  /** Wire a virtio-serial guest agent socket and offer a GuestChannel through it. Default false. */
  guest_agent?: boolean;
  /** Shown when the golden is missing. */
  build_hint?: string;
}

export function templateOptions(raw: Record<string, unknown> | undefined): QemuTemplateOptions {
  const o = raw ?? {};
  const str = (k: string): string | undefined => (typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : undefined);
  return {
    kernel: str('kernel'), initrd: str('initrd'), append: str('append'), ready_marker: str('ready_marker'),
    network: o.network === true, guest_agent: o.guest_agent === true, build_hint: str('build_hint'),
  };
}
