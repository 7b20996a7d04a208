/**
 * Options of @vmhub/adapter-console, set under `adapters.console` in the server config or per
 * template under `adapter_options` (merged over the former). Keys are snake_case like every other
 * vmhub config key; unknown keys are rejected. Every field is optional: createRuntime fills the
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
