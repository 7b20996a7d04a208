/**
 * HyprlandOptions: the adapter's only configuration, validated (with defaults filled) by
 * defineAdapter. Templates set them under `adapter_options`. Everything about the session
 * (runtime dir, sockets, which compositor) is discovered in the guest when an option is absent.
 */
import { Type, type Static } from '@vmhub/core';
import { desktopUserOption, guestCommandOptions, pointerOptions, resolveOptions as validateOptions } from '@vmhub/core/adapter-kit';

const NAME = '^[A-Za-z0-9._-]+$';

export const HyprlandOptionsSchema = Type.Object({
  /** Which compositor to drive: "auto" (default: Hyprland when an instance is found, else sway), "sway" or "hyprland". */
  compositor: Type.Union([Type.Literal('auto'), Type.Literal('sway'), Type.Literal('hyprland')], { default: 'auto', description: 'auto | sway | hyprland, default auto' }),
  /** XDG_RUNTIME_DIR of the desktop user in the guest. Default /run/user/<uid of the exec user>. */
  xdg_runtime_dir: Type.Optional(Type.String({ pattern: '^/[A-Za-z0-9._/-]*$', description: 'XDG_RUNTIME_DIR in the guest; default /run/user/$(id -u)' })),
  /** Wayland socket name. Default: Hyprland's lock file, else the first wayland-N socket. */
  wayland_display: Type.Optional(Type.String({ pattern: NAME, description: 'WAYLAND_DISPLAY; default discovered' })),
  /** sway IPC socket path. Default: the newest live $XDG_RUNTIME_DIR/sway-ipc.*.sock. */
  swaysock: Type.Optional(Type.String({ pattern: '^/[A-Za-z0-9._/-]*$', description: 'SWAYSOCK; default discovered' })),
  /** Hyprland instance signature (a directory under $XDG_RUNTIME_DIR/hypr/). Default: the newest live one. */
  hyprland_instance_signature: Type.Optional(Type.String({ pattern: NAME, description: 'HYPRLAND_INSTANCE_SIGNATURE; default discovered' })),
  /** Limit the screen to one output (screenshots and input); default the whole layout. */
  output: Type.Optional(Type.String({ pattern: NAME, description: 'one output by name (e.g. HEADLESS-1); default the whole layout' })),
  user: desktopUserOption,
  /** Milliseconds between keystrokes of vm_type (the kept virtual keyboard, vkeyboard.ts). Default 2. */
  type_delay_ms: Type.Integer({ default: 2, minimum: 0, maximum: 1000, description: 'milliseconds between keystrokes, default 2' }),
  /**
   * Milliseconds a new virtual input device waits before its first event: clients bind it only
   * after the seat announces it, and an event before that is lost. Paid by a pointer action
   * without the session's holder, by modifiers held for a click or paste (wtype -s), and once
   * by the session's keyboard helper when it is born on a seat with no keyboard. Default 150.
   */
  input_settle_ms: Type.Integer({ default: 150, minimum: 0, maximum: 5000, description: 'settle time of a new virtual input device, default 150' }),
  /**
   * Seconds the session's pointer holder (a virtual pointer kept between actions, so clicks need
   * no settle) lives without use; 0 = no holder, every pointer action settles. Default 300.
   */
  pointer_hold_seconds: Type.Integer({ default: 300, minimum: 0, maximum: 86400, description: 'idle life of the kept virtual pointer, 0 = none; default 300' }),
  /**
   * Seconds the session's keyboard helper (the kept virtual keyboard, vkeyboard.ts) lives
   * without a vm_type / vm_key; the next call starts a new one. Default 300.
   */
  keyboard_hold_seconds: Type.Integer({ default: 300, minimum: 1, maximum: 86400, description: 'idle life of the kept virtual keyboard, default 300' }),
  /**
   * Screenshots from the provider's shared framebuffer directory when it has one (capture.ts: a
   * kept capture helper, no guest command per screenshot); false: grim in the guest per call.
   * Default true.
   */
  screenshot_framebuffer: Type.Boolean({ default: true, description: 'capture through the provider\'s shared framebuffer directory when there is one, default true' }),
  /** Characters per guest command of vm_type; longer text is typed by several, in order. Default 400. */
  type_chunk_chars: Type.Integer({ default: 400, minimum: 1, maximum: 10000, description: 'characters per guest command of vm_type, default 400' }),
  ...pointerOptions({ drag_step_delay_ms: 10 }),
  /** app_id / class values of terminals that paste with ctrl+shift+v. */
  terminal_classes: Type.Array(Type.String({ minLength: 1, pattern: '^[^\\s]+$' }), {
    default: ['foot', 'footclient', 'kitty', 'Alacritty', 'org.wezfurlong.wezterm', 'org.gnome.Terminal', 'gnome-terminal-server', 'org.kde.konsole', 'konsole', 'xfce4-terminal', 'Xfce4-terminal', 'Tilix', 'com.gexperts.Tilix', 'terminator', 'XTerm', 'xterm'],
    description: 'terminals that paste with ctrl+shift+v',
  }),
  ...guestCommandOptions,
}, { additionalProperties: false });

/** Options as given (before defaults). */
export type HyprlandOptionsInput = Partial<Static<typeof HyprlandOptionsSchema>>;

/** Options after validation and defaults: what the capabilities read. */
export type HyprlandOptions = Static<typeof HyprlandOptionsSchema>;

/** Validate and complete options. */
export function resolveOptions(raw: HyprlandOptionsInput | Record<string, unknown> = {}): HyprlandOptions {
  return validateOptions<HyprlandOptions>(HyprlandOptionsSchema, raw, 'adapter-hyprland');
}

