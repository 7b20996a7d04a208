/**
 * X11Options: the adapter's only configuration, validated (with defaults filled) by defineAdapter.
 * Templates set them under `adapter_options`; env vars are read by createX11Adapter only when the
 * option is absent.
 */
import { assertValid, Type, VmhubError, type Static } from '@vmhub/core';

// host:display[.screen], host optional: the only shape handed to the guest as DISPLAY.
const DISPLAY_PATTERN = '^[A-Za-z0-9._-]*:[0-9]+(\\.[0-9]+)?$';

export const X11OptionsSchema = Type.Object({
  /** X display the desktop runs on. Default ":0" (env VMHUB_X11_DISPLAY when the option is absent). */
  display: Type.Optional(Type.String({ pattern: DISPLAY_PATTERN, description: 'X display, default ":0" (env VMHUB_X11_DISPLAY)' })),
  /** XAUTHORITY file in the guest, when the X server checks cookies. Default: none. */
  xauthority: Type.Optional(Type.String({ minLength: 1, description: 'XAUTHORITY path in the guest; default unset' })),
  /** Guest user the X session belongs to. Default: the channel's desktop user. */
  user: Type.Optional(Type.String({ minLength: 1, pattern: '^[a-z_][a-z0-9_-]*$', description: 'guest user; default the channel\'s desktop user' })),
  /** Milliseconds between keystrokes for vm_type (xdotool type --delay). Default 12. */
  type_delay_ms: Type.Integer({ default: 12, minimum: 0, maximum: 1000, description: 'xdotool type --delay, default 12' }),
  /** Milliseconds per character that needs a keycode remap (non-ASCII) — slower, or clients drop them. Default 40. */
  remap_delay_ms: Type.Integer({ default: 40, minimum: 1, maximum: 1000, description: 'delay for characters outside the keymap, default 40' }),
  /** Characters per xdotool call; longer text is typed by several calls, in order. Default 256. */
  type_chunk_chars: Type.Integer({ default: 256, minimum: 1, maximum: 10000, description: 'characters per xdotool type call, default 256' }),
  /** Milliseconds between clicks of a double/triple click. Default 60. */
  click_delay_ms: Type.Integer({ default: 60, minimum: 0, maximum: 1000, description: 'delay between repeated clicks, default 60' }),
  /** Intermediate pointer positions in a drag. Default 12. */
  drag_steps: Type.Integer({ default: 12, minimum: 1, maximum: 200, description: 'pointer steps in a drag, default 12' }),
  /** Milliseconds between drag steps. Default 8. */
  drag_step_delay_ms: Type.Integer({ default: 8, minimum: 0, maximum: 500, description: 'delay between drag steps, default 8' }),
  /** How long vm_paste waits for the focused app to fetch the clipboard. Default 2000. */
  paste_timeout_ms: Type.Integer({ default: 2000, minimum: 100, maximum: 30000, description: 'wait for the app to read the clipboard, default 2000' }),
  /**
   * WM_CLASS values (instance or class) of terminals that paste with ctrl+shift+v from CLIPBOARD.
   * Default: common VTE/Qt/GPU terminals.
   */
  terminal_classes: Type.Array(Type.String({ minLength: 1, pattern: '^[^\\s]+$' }), {
    default: ['Gnome-terminal', 'gnome-terminal-server', 'Xfce4-terminal', 'konsole', 'Terminator', 'Tilix', 'kitty', 'Alacritty', 'Lxterminal', 'Mate-terminal', 'Sakura', 'st-256color', 'foot', 'wezterm', 'org.wezfurlong.wezterm'],
    description: 'terminals that paste with ctrl+shift+v',
  }),
  /**
   * WM_CLASS values of terminals whose default translations paste PRIMARY on shift+Insert
   * (XTerm binds no ctrl+shift+v). Default XTerm, UXTerm, URxvt.
   */
  primary_paste_classes: Type.Array(Type.String({ minLength: 1, pattern: '^[^\\s]+$' }), {
    default: ['XTerm', 'UXTerm', 'URxvt'],
    description: 'terminals that paste PRIMARY with shift+Insert',
  }),
  /**
   * Compress the XWD frame in the guest (`gzip -1`, ~4 MB → ~50 KB) before it crosses the channel.
   * Faster through docker's exec helper (66 vs 107 ms) and over any network channel. Default true.
   */
  screenshot_gzip: Type.Boolean({ default: true, description: 'gzip the frame in the guest before transfer, default true' }),
  /**
   * Read the screen from the framebuffer file the provider shares with the host
   * (lease.framebuffer(): Xvfb -fbdir on a tmpfs), when it has one: no guest process per
   * screenshot. Falls back to `xwd` in the guest per call. Default true.
   */
  screenshot_framebuffer: Type.Boolean({ default: true, description: 'read the screen from the provider\'s host framebuffer file when there is one, default true' }),
  /**
   * Send clicks, scrolls and drags in process through the guest X server's socket when the provider shares it
   * (lease.framebuffer().x11_socket): XTEST requests, no process per click. Default true.
   */
  input_xtest: Type.Boolean({ default: true, description: 'send clicks, scrolls and drags through the X server socket the provider shares, when there is one, default true' }),
  /** Timeout for one adapter command in the guest (not vm_exec). Default 15000. */
  command_timeout_ms: Type.Integer({ default: 15000, minimum: 500, maximum: 600000, description: 'timeout of one guest command, default 15000' }),
  /** Largest archive vm_clone_repo buffers when the channel has no putArchive. Default 512 MiB. */
  max_archive_bytes: Type.Integer({ default: 536870912, minimum: 1024, description: 'cap for clone archives without putArchive, default 512 MiB' }),
}, { additionalProperties: false });

/** Options as given (before defaults). */
export type X11OptionsInput = Partial<Static<typeof X11OptionsSchema>>;

/** Options after validation, defaults and the env fallback: what the capabilities read. */
export type X11Options = Static<typeof X11OptionsSchema> & { display: string };

export const DEFAULT_DISPLAY = ':0';

/** Validate and complete options; explicit values beat env vars, env vars beat defaults. */
export function resolveOptions(raw: X11OptionsInput | Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env): X11Options {
  const value = assertValid<Static<typeof X11OptionsSchema>>(X11OptionsSchema, structuredClone(raw), '[vmhub] [adapter-x11] options', 'adapter-x11');
  return completeOptions(value, env);
}

/** Fill defaults on already-validated options (defineAdapter validated them). */
export function completeOptions(value: Static<typeof X11OptionsSchema>, env: NodeJS.ProcessEnv = process.env): X11Options {
  return { ...value, display: value.display ?? completeDisplay(env.VMHUB_X11_DISPLAY) };
}

/**
 * The options one lease runs with: the instance's, refined by its template's adapter_options.
 * The server already makes a per-template instance from those; the merge matters when the
 * instance was made before the template existed (the conformance kit does that). Once per
 * session, at open().
 */
export function leaseOptions(instance: X11Options, overrides: Record<string, unknown> | undefined): X11Options {
  if (!overrides || Object.keys(overrides).length === 0) return instance;
  return resolveOptions({ ...instance, ...overrides });
}

function completeDisplay(fromEnv: string | undefined): string {
  if (fromEnv === undefined || fromEnv === '') return DEFAULT_DISPLAY;
  if (!new RegExp(DISPLAY_PATTERN).test(fromEnv)) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [adapter-x11] VMHUB_X11_DISPLAY="${fromEnv}" is not an X display such as ":0"`, { source: 'adapter-x11' });
  }
  return fromEnv;
}
