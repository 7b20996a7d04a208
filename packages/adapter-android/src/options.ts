/**
 * AndroidOptions: the adapter's configuration, validated (defaults filled) by defineAdapter.
 * Templates refine them under `adapter_options`.
 */
import { assertValid, Type, type Static } from '@vmhub/core';

const ACTION = '^[A-Za-z0-9_.]+$';
const PACKAGE = '^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)+$';
const COMPONENT = '^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z0-9_]+)+/[A-Za-z0-9_.$]+$';

export const AndroidOptionsSchema = Type.Object({
  /** Timeout for one adapter command on the device (not vm_exec). Default 20000. */
  command_timeout_ms: Type.Integer({ default: 20000, minimum: 500, maximum: 600000, description: 'timeout of one device command, default 20000' }),
  /** Hold time of a long press (right click): `input swipe x y x y <ms>`. Default 600. */
  long_press_ms: Type.Integer({ default: 600, minimum: 100, maximum: 10000, description: 'long-press duration (right click), default 600' }),
  /** Duration of a drag swipe. Default 800. */
  drag_ms: Type.Integer({ default: 800, minimum: 50, maximum: 10000, description: 'drag swipe duration, default 800' }),
  /** Duration of one scroll swipe. Default 300. */
  scroll_ms: Type.Integer({ default: 300, minimum: 50, maximum: 5000, description: 'scroll swipe duration, default 300' }),
  /** Swipe distance per scroll amount, in percent of the screen's height (or width). Default 10. */
  scroll_step_percent: Type.Integer({ default: 10, minimum: 1, maximum: 100, description: 'swipe distance per scroll unit, % of the screen, default 10' }),
  /** Broadcast action that sets the clipboard (Clipper protocol). Default "clipper.set". */
  clipboard_action: Type.String({ default: 'clipper.set', pattern: ACTION, description: 'broadcast action that sets the clipboard, default clipper.set' }),
  /** String extra carrying the text. Default "text". */
  clipboard_extra: Type.String({ default: 'text', pattern: ACTION, description: 'extra name of the clipboard text, default text' }),
  /** Explicit receiver (`pkg/.Receiver`) for the broadcast (`am broadcast -n`). Default none. */
  clipboard_component: Type.Optional(Type.String({ pattern: COMPONENT, description: 'explicit clipboard receiver component; default none' })),
  /** Package the probe looks for (`pm list packages`) to say whether paste works. Default ca.zgrs.clipper. */
  clipboard_package: Type.String({ default: 'ca.zgrs.clipper', pattern: PACKAGE, description: 'clipboard helper package for the probe, default ca.zgrs.clipper' }),
  /** Attempts of `uiautomator dump` on its known transient failures. Default 5. */
  inspect_attempts: Type.Integer({ default: 5, minimum: 1, maximum: 20, description: 'uiautomator dump attempts, default 5' }),
  /** Pause between those attempts. Default 300. */
  inspect_retry_ms: Type.Integer({ default: 300, minimum: 0, maximum: 5000, description: 'pause between uiautomator attempts, default 300' }),
  /** Writable directory on the device for the adapter's scratch files. Default /data/local/tmp. */
  scratch_dir: Type.String({ default: '/data/local/tmp', pattern: '^/[^\\0]*$', description: 'scratch directory on the device, default /data/local/tmp' }),
  /** Printable ASCII characters per `input text` call. Default 500. */
  text_chunk_chars: Type.Integer({ default: 500, minimum: 1, maximum: 10000, description: 'characters per input text call, default 500' }),
}, { additionalProperties: false });

export type AndroidOptionsInput = Partial<Static<typeof AndroidOptionsSchema>>;
export type AndroidOptions = Static<typeof AndroidOptionsSchema>;

export function resolveOptions(raw: AndroidOptionsInput | Record<string, unknown> = {}): AndroidOptions {
  return assertValid<AndroidOptions>(AndroidOptionsSchema, structuredClone(raw), '[vmhub] [adapter-android] options', 'adapter-android');
}

