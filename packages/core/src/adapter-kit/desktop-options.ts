/**
 * Option fields desktop adapters share, with the same names, bounds and wording everywhere (each
 * adapter's schema spreads them among its own): the guest user, the pointer and clipboard
 * pacing, and the bounds of a guest command and of a clone archive.
 */
import { Type } from '@sinclair/typebox';

/** Guest user the desktop session belongs to. Default: the channel's desktop user. */
export const desktopUserOption = Type.Optional(Type.String({ minLength: 1, pattern: '^[a-z_][a-z0-9_-]*$', description: 'guest user; default the channel\'s desktop user' }));

/** click_delay_ms, drag_steps, drag_step_delay_ms (default the adapter's) and paste_timeout_ms. */
export function pointerOptions(defaults: { drag_step_delay_ms: number }) {
  return {
    /** Milliseconds between clicks of a double/triple click. Default 60. */
    click_delay_ms: Type.Integer({ default: 60, minimum: 0, maximum: 1000, description: 'delay between repeated clicks, default 60' }),
    /** Intermediate pointer positions in a drag. Default 12. */
    drag_steps: Type.Integer({ default: 12, minimum: 1, maximum: 200, description: 'pointer steps in a drag, default 12' }),
    /** Milliseconds between drag steps. */
    drag_step_delay_ms: Type.Integer({ default: defaults.drag_step_delay_ms, minimum: 0, maximum: 500, description: `delay between drag steps, default ${defaults.drag_step_delay_ms}` }),
    /** How long vm_paste waits for the focused app to fetch the clipboard. Default 2000. */
    paste_timeout_ms: Type.Integer({ default: 2000, minimum: 100, maximum: 30000, description: 'wait for the app to read the clipboard, default 2000' }),
  };
}

/** command_timeout_ms and max_archive_bytes. */
export const guestCommandOptions = {
  /** Timeout for one adapter command in the guest (not vm_exec). Default 15000. */
  command_timeout_ms: Type.Integer({ default: 15000, minimum: 500, maximum: 600000, description: 'timeout of one guest command, default 15000' }),
  /** Largest archive vm_clone_repo buffers when the channel has no putArchive. Default 512 MiB. */
  max_archive_bytes: Type.Integer({ default: 536870912, minimum: 1024, description: 'cap for clone archives without putArchive, default 512 MiB' }),
};
