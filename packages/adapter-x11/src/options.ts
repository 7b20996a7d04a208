/**
 * X11Options: the adapter's only configuration, validated (with defaults filled) by defineAdapter.
 * Templates set them under `adapter_options`; env vars are read by createX11Adapter only when the
 * option is absent.
 */
import { Type, VmhubError, type Static } from '@vmhub/core';
import { desktopUserOption, guestCommandOptions, pointerOptions, resolveOptions as validateOptions } from '@vmhub/core/adapter-kit';

// host:display[.screen], host optional: the only shape handed to the guest as DISPLAY.
const DISPLAY_PATTERN = '^[A-Za-z0-9._-]*:[0-9]+(\\.[0-9]+)?$';

export const X11OptionsSchema = Type.Object({
  /** X display the desktop runs on. Default ":0" (env VMHUB_X11_DISPLAY when the option is absent). */
  display: Type.Optional(Type.String({ pattern: DISPLAY_PATTERN, description: 'X display, default ":0" (env VMHUB_X11_DISPLAY)' })),
  /** XAUTHORITY file in the guest, when the X server checks cookies. Default: none. */
  xauthority: Type.Optional(Type.String({ minLength: 1, description: 'XAUTHORITY path in the guest; default unset' })),
  user: desktopUserOption,
  /** Milliseconds between keystrokes for vm_type (xdotool type --delay). Default 12. */
  type_delay_ms: Type.Integer({ default: 12, minimum: 0, maximum: 1000, description: 'xdotool type --delay, default 12' }),
  /** Milliseconds per character that needs a keycode remap (non-ASCII) — slower, or clients drop them. Default 40. */
  remap_delay_ms: Type.Integer({ default: 40, minimum: 1, maximum: 1000, description: 'delay for characters outside the keymap, default 40' }),
  /** Characters per xdotool call; longer text is typed by several calls, in order. Default 256. */
  type_chunk_chars: Type.Integer({ default: 256, minimum: 1, maximum: 10000, description: 'characters per xdotool type call, default 256' }),
  ...pointerOptions({ drag_step_delay_ms: 8 }),
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
  ...guestCommandOptions,
}, { additionalProperties: false });

/** Options as given (before defaults). */
export type X11OptionsInput = Partial<Static<typeof X11OptionsSchema>>;

/** Options after validation, defaults and the env fallback: what the capabilities read. */
export type X11Options = Static<typeof X11OptionsSchema> & { display: string };

export const DEFAULT_DISPLAY = ':0';

/** Validate and complete options; explicit values beat env vars, env vars beat defaults. */
export function resolveOptions(raw: X11OptionsInput | Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env): X11Options {
  return completeOptions(validateOptions(X11OptionsSchema, raw, 'adapter-x11'), env);
}

/** Fill defaults on already-validated options (defineAdapter validated them). */
export function completeOptions(value: Static<typeof X11OptionsSchema>, env: NodeJS.ProcessEnv = process.env): X11Options {
  return { ...value, display: value.display ?? completeDisplay(env.VMHUB_X11_DISPLAY) };
}

function completeDisplay(fromEnv: string | undefined): string {
  if (fromEnv === undefined || fromEnv === '') return DEFAULT_DISPLAY;
  if (!new RegExp(DISPLAY_PATTERN).test(fromEnv)) {
    throw new VmhubError('INVALID_REQUEST', `[vmhub] [adapter-x11] VMHUB_X11_DISPLAY="${fromEnv}" is not an X display such as ":0"`, { source: 'adapter-x11' });
  }
  return fromEnv;
}
