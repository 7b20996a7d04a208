/**
 * What the capability functions share: resolved options and the per-lease screen size (learned
 * from the last screendump, for pointer scaling and bounds checks).
 */
import type { ConsoleAdapterOptions } from './options.ts';

export interface Screen { width: number; height: number }

export interface ConsoleRuntime {
  keyDelayMs: number;
  pointerDelayMs: number;
  dragSteps: number;
  maxArchiveBytes: number;
  /** Last known screen size by lease id. */
  screens: Map<string, Screen>;
}

export function createRuntime(options: ConsoleAdapterOptions): ConsoleRuntime {
  const envDelay = Number(process.env.VMHUB_CONSOLE_KEY_DELAY_MS);
  return {
    keyDelayMs: options.key_delay_ms ?? (process.env.VMHUB_CONSOLE_KEY_DELAY_MS && Number.isFinite(envDelay) && envDelay >= 0 ? envDelay : 20),
    pointerDelayMs: options.pointer_delay_ms ?? 15,
    dragSteps: options.drag_steps ?? 10,
    maxArchiveBytes: options.max_archive_bytes ?? 256 * 1024 * 1024,
    screens: new Map(),
  };
}
