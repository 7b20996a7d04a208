/**
 * Options of @vmhub/adapter-console. Plain JSON Schema (Ajv validates it in defineAdapter):
 * @sinclair/typebox is not a dependency of this package yet; the interface mirrors it.
 */
export const ConsoleAdapterOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    keyDelayMs: { type: 'integer', minimum: 0, maximum: 1000 },
    pointerDelayMs: { type: 'integer', minimum: 0, maximum: 1000 },
    dragSteps: { type: 'integer', minimum: 1, maximum: 200 },
    maxArchiveBytes: { type: 'integer', minimum: 1 },
  },
} as const;

export interface ConsoleAdapterOptions {
  /** Hold between a key's press and release, and gap after it, ms. Default 20 (env VMHUB_CONSOLE_KEY_DELAY_MS); a USB keyboard reports one change per guest poll, and QEMU drops keys when its 16-entry HID queue overflows. */
  keyDelayMs?: number;
  /** Pause between pointer events (move, press, release), ms. Default 15. */
  pointerDelayMs?: number;
  /** Intermediate pointer positions during a drag. Default 10. */
  dragSteps?: number;
  /** Largest repository archive vm_clone_repo buffers when the channel has no putArchive, bytes. Default 268 435 456 (256 MiB). */
  maxArchiveBytes?: number;
}
