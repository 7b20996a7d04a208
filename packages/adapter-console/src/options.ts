/**
 * Options of @vmhub/adapter-console, set under `adapters.console` in the server config or per
 * template under `adapter_options` (merged over the former). Keys are snake_case like every other
 * vmhub config key; unknown keys are rejected. Every field is optional: consoleSettings fills the
 * defaults (and reads VMHUB_CONSOLE_KEY_DELAY_MS), so an explicit option beats the environment.
 */
import { Type, type Static } from '@vmhub/core';

export const ConsoleAdapterOptionsSchema = Type.Object({
  /** Hold between a key's press and release, and gap after it, ms. Default 20 (env VMHUB_CONSOLE_KEY_DELAY_MS); a USB keyboard reports one change per guest poll, and QEMU drops keys when its 16-entry HID queue overflows. */
  key_delay_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  /** Pause between pointer events (move, press, release), ms. Default 15. */
  pointer_delay_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  /** Intermediate pointer positions during a drag. Default 10. */
  drag_steps: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  /** Largest repository archive vm_clone_repo buffers when the channel has no putArchive, bytes. Default 268 435 456 (256 MiB). */
  max_archive_bytes: Type.Optional(Type.Integer({ minimum: 1 })),
}, { additionalProperties: false });

export type ConsoleAdapterOptions = Static<typeof ConsoleAdapterOptionsSchema>;

/** The options with every default filled: what a lease's session works with. */
export interface ConsoleSettings {
  keyDelayMs: number;
  pointerDelayMs: number;
  dragSteps: number;
  maxArchiveBytes: number;
}

export function consoleSettings(options: ConsoleAdapterOptions): ConsoleSettings {
  const envDelay = Number(process.env.VMHUB_CONSOLE_KEY_DELAY_MS);
  return {
    keyDelayMs: options.key_delay_ms ?? (process.env.VMHUB_CONSOLE_KEY_DELAY_MS && Number.isFinite(envDelay) && envDelay >= 0 ? envDelay : 20),
    pointerDelayMs: options.pointer_delay_ms ?? 15,
    dragSteps: options.drag_steps ?? 10,
    maxArchiveBytes: options.max_archive_bytes ?? 256 * 1024 * 1024,
  };
}
