/**
 * MacosOptions: the adapter's configuration, validated (defaults filled) by defineAdapter. Set per
 * adapter instance (server config `adapters.macos`) or per template (`adapter_options`). Secrets
 * (the SSH key, the VNC password) come from the vmhub host — an env var named here, or a file —
 * never from tool arguments; the inline `ssh_private_key` / `vnc_password` exist for published
 * test credentials such as the macos-standin golden's, and are documented as such.
 */
import { readFileSync } from 'node:fs';
import { assertValid, Type, type Static } from '@vmhub/core';
import { DOCS, macError, SOURCE } from './errors.ts';

const ENV_NAME = { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' };

export const MacosOptionsSchema = Type.Object({
  /**
   * Where the screen comes from: "screen-sharing" (the guest's Screen Sharing / any VNC server on
   * `vnc_port`, through the provider's guest ports), "console" (the provider's hypervisor-side VNC,
   * ConsoleHandle.openVnc(): QEMU, Lume/Tart) or "none" (no VNC: the in-guest tools serve the
   * screen and input; needs in_guest_tools). Default "screen-sharing".
   */
  vnc: Type.Union([Type.Literal('screen-sharing'), Type.Literal('console'), Type.Literal('none')], { default: 'screen-sharing', description: '"screen-sharing" (guest port), "console" (hypervisor VNC) or "none"; default "screen-sharing"' }),
  /** Guest TCP port of Screen Sharing. Default 5900. */
  vnc_port: Type.Integer({ minimum: 1, maximum: 65535, default: 5900, description: 'guest VNC port, default 5900' }),
  /** ARD (type 30) user name. Default: none (VNC password auth only). */
  vnc_username: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: 'ARD user name' })),
  /** Env var on the vmhub host holding the ARD user name (wins over vnc_username). */
  vnc_username_env: Type.Optional(Type.String({ ...ENV_NAME, description: 'env var holding the ARD user name' })),
  /** Env var on the vmhub host holding the VNC/ARD password. For "console", default: the password the provider hands out. */
  vnc_password_env: Type.Optional(Type.String({ ...ENV_NAME, description: 'env var holding the VNC/ARD password' })),
  /** Name of the lease secret (Provider.secret, made per lease at create) holding the VNC/ARD password; wins over the others when the lease has it. */
  vnc_password_secret: Type.Optional(Type.String({ ...ENV_NAME, description: 'lease secret with the VNC/ARD password' })),
  /** The VNC/ARD password inline: for published test credentials only (the stand-in's); use vnc_password_env. */
  vnc_password: Type.Optional(Type.String({ maxLength: 63, description: 'inline VNC/ARD password, test credentials only' })),
  /** Keysym sent for cmd/command: Super_L (Apple's hypervisor VNC, per Lume's client) or Meta_L. Default Super_L. */
  command_keysym: Type.Union([Type.Literal('Super_L'), Type.Literal('Meta_L')], { default: 'Super_L', description: 'keysym for cmd, default Super_L' }),
  /**
   * How characters that need Shift on a US keyboard are typed over VNC: "keysym" (Shift held, the
   * character's own keysym: what a VNC viewer sends; x11vnc, Xvnc, QEMU) or "base" (Shift held, the
   * unshifted key's keysym, as Lume's client sends to Apple's hypervisor server). Default "keysym".
   */
  shift_style: Type.Union([Type.Literal('keysym'), Type.Literal('base')], { default: 'keysym', description: '"keysym" or "base" (Lume style); default "keysym"' }),
  /** Milliseconds between keystrokes over VNC. Default 2. */
  key_delay_ms: Type.Integer({ minimum: 0, maximum: 1000, default: 2, description: 'delay between keystrokes, default 2' }),
  /** After each input action over VNC, wait up to this long for a full-screen update: the server has then applied it. 0: do not wait. Default 1000. */
  settle_ms: Type.Integer({ minimum: 0, maximum: 10000, default: 1000, description: 'wait for the server to acknowledge input with an update, default 1000' }),
  /** SSH user. Default "admin" (Tart's macOS images; Lume's unattended setup makes "lume"). */
  ssh_user: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$', default: 'admin', description: 'SSH user, default "admin"' }),
  /** Guest TCP port of sshd (Remote Login). Default 22. */
  ssh_port: Type.Integer({ minimum: 1, maximum: 65535, default: 22, description: 'guest sshd port, default 22' }),
  /** Env var on the vmhub host holding the SSH private key (OpenSSH or PEM). */
  ssh_key_env: Type.Optional(Type.String({ ...ENV_NAME, description: 'env var holding the SSH private key' })),
  /** File on the vmhub host holding the SSH private key. */
  ssh_key_file: Type.Optional(Type.String({ minLength: 1, pattern: '^/', description: 'absolute path of the SSH private key on the vmhub host' })),
  /** Env var on the vmhub host holding the SSH password (Lume/Tart images ship one), when there is no key. */
  ssh_password_env: Type.Optional(Type.String({ ...ENV_NAME, description: 'env var holding the SSH password' })),
  /** Name of the lease secret (Provider.secret, made per lease at create) holding the SSH password; wins over the others when the lease has it. */
  ssh_password_secret: Type.Optional(Type.String({ ...ENV_NAME, description: 'lease secret with the SSH password' })),
  /** The SSH private key inline: for published test keys only (the stand-in's); use ssh_key_env or ssh_key_file. */
  ssh_private_key: Type.Optional(Type.String({ minLength: 1, description: 'inline SSH private key, test keys only' })),
  /** SHA-256 (base64, as `ssh-keygen -l` prints it after "SHA256:") the guest's host key must have. Default: pinned on first use for the session. */
  ssh_host_key_sha256: Type.Optional(Type.String({ pattern: '^(SHA256:)?[A-Za-z0-9+/]{43}=?$', description: 'host key fingerprint to require; default trust on first use per session' })),
  /** Use screencapture, cliclick and osascript over SSH: window list/focus/close, and screen and input when vnc is "none". Needs TCC grants (docs). Default false. */
  in_guest_tools: Type.Boolean({ default: false, description: 'use screencapture/cliclick/osascript over SSH; default false' }),
  /** Pixels per point for the in-guest path (cliclick and System Events speak points): 2 on a Retina display. Default 1. */
  display_scale: Type.Number({ minimum: 1, maximum: 4, default: 1, description: 'pixels per point for cliclick/System Events, 2 on Retina; default 1' }),
  /** PATH for commands the adapter runs (Homebrew's cliclick lives in /opt/homebrew/bin). */
  tool_path: Type.String({ minLength: 1, pattern: '^[^\'\\n]+$', default: '/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin', description: 'PATH for the adapter\'s own guest commands' }),
  /** Timeout of one adapter command in the guest (not vm_exec). Default 15000. */
  command_timeout_ms: Type.Integer({ minimum: 500, maximum: 600000, default: 15000, description: 'timeout of one guest command, default 15000' }),
  /** Timeout of the SSH and VNC handshakes. Default 15000. */
  connect_timeout_ms: Type.Integer({ minimum: 500, maximum: 120000, default: 15000, description: 'SSH/VNC handshake timeout, default 15000' }),
}, { additionalProperties: false });

export type MacosOptionsInput = Partial<Static<typeof MacosOptionsSchema>>;
export type MacosOptions = Static<typeof MacosOptionsSchema>;

export function resolveOptions(raw: MacosOptionsInput | Record<string, unknown> = {}): MacosOptions {
  const opts = assertValid<MacosOptions>(MacosOptionsSchema, structuredClone(raw), `[vmhub] [${SOURCE}] options`, SOURCE);
  if (opts.vnc === 'none' && !opts.in_guest_tools) {
    throw macError('INVALID_REQUEST', `vnc: "none" needs in_guest_tools: true (screen and input then go through screencapture/cliclick/osascript): set one of them (${DOCS})`);
  }
  return opts;
}

export interface SshAuth {
  privateKey?: string;
  password?: string;
}

/** The SSH credential, read from the vmhub host at connect time (a rotated key is picked up). */
export function sshAuth(o: MacosOptions, env: NodeJS.ProcessEnv = process.env): SshAuth {
  if (o.ssh_key_env) {
    const key = env[o.ssh_key_env];
    if (!key) throw macError('CAPABILITY_UNAVAILABLE', `the env var ${o.ssh_key_env} (adapter_options.ssh_key_env) is not set on the vmhub host: put the lease's SSH private key in it (${DOCS})`);
    return { privateKey: key };
  }
  if (o.ssh_key_file) {
    try {
      return { privateKey: readFileSync(o.ssh_key_file, 'utf8') };
    } catch (err) {
      throw macError('CAPABILITY_UNAVAILABLE', `cannot read the SSH key file ${o.ssh_key_file} (adapter_options.ssh_key_file) on the vmhub host: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
    }
  }
  if (o.ssh_private_key) return { privateKey: o.ssh_private_key };
  if (o.ssh_password_env) {
    const password = env[o.ssh_password_env];
    if (password === undefined) throw macError('CAPABILITY_UNAVAILABLE', `the env var ${o.ssh_password_env} (adapter_options.ssh_password_env) is not set on the vmhub host (${DOCS})`);
    return { password };
  }
  throw macError('CAPABILITY_UNAVAILABLE', `no SSH credential configured: set adapter_options.ssh_key_env (an env var on the vmhub host holding the private key), ssh_key_file, or ssh_password_env (${DOCS})`);
}

export interface VncAuth {
  username?: string;
  password?: string;
}

/** VNC/ARD credentials from the vmhub host; `fallbackPassword` is what a console handed out. */
export function vncAuth(o: MacosOptions, fallbackPassword?: string, env: NodeJS.ProcessEnv = process.env): VncAuth {
  let username = o.vnc_username;
  if (o.vnc_username_env) {
    username = env[o.vnc_username_env];
    if (!username) throw macError('CAPABILITY_UNAVAILABLE', `the env var ${o.vnc_username_env} (adapter_options.vnc_username_env) is not set on the vmhub host (${DOCS})`);
  }
  let password = o.vnc_password ?? fallbackPassword;
  if (o.vnc_password_env) {
    password = env[o.vnc_password_env];
    if (password === undefined) throw macError('CAPABILITY_UNAVAILABLE', `the env var ${o.vnc_password_env} (adapter_options.vnc_password_env) is not set on the vmhub host (${DOCS})`);
  }
  return { ...(username ? { username } : {}), ...(password !== undefined ? { password } : {}) };
}
