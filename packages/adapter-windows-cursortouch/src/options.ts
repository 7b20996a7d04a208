/**
 * WindowsOptions: where Windows-MCP listens in the guest and where the auth key comes from.
 * Set per adapter instance (server config `adapters.windows-cursortouch`) or per template
 * (`adapter_options`), merged once per lease at open(). The key itself is never an option: only
 * the NAME of the vmhub host's environment variable that holds it, so no config file or template
 * carries a secret.
 */
import { assertValid, Type, type Static } from '@vmhub/core';
import { SOURCE } from './errors.ts';

export const WindowsOptionsSchema = Type.Object({
  /** Guest TCP port Windows-MCP serves Streamable HTTP on. Default 8000 (its default). */
  port: Type.Integer({ default: 8000, minimum: 1, maximum: 65535, description: 'Windows-MCP port in the guest, default 8000' }),
  /** HTTP path of the MCP endpoint. Default "/mcp/" (what `windows-mcp auth` prints). */
  path: Type.String({ default: '/mcp/', pattern: '^/[A-Za-z0-9._~/-]*$', description: 'MCP endpoint path, default "/mcp/"' }),
  /** Env var on the vmhub host holding the Bearer key. Default CURSORTOUCH_AUTH_KEY. */
  auth_key_env: Type.String({ default: 'CURSORTOUCH_AUTH_KEY', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'vmhub host env var with the auth key, default CURSORTOUCH_AUTH_KEY' }),
  /**
   * Name of the lease secret holding the key (Provider.secret: e.g. the Docker provider's
   * `provider_options.lease_secrets`), made per lease at create and given to Windows-MCP in the
   * guest, so no key is baked into a golden. When the lease has it, it wins over auth_key_env.
   * Default WINDOWS_MCP_AUTH_KEY (the variable Windows-MCP reads).
   */
  auth_key_secret: Type.Optional(Type.String({ default: 'WINDOWS_MCP_AUTH_KEY', pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'lease secret with the auth key, default WINDOWS_MCP_AUTH_KEY; wins over auth_key_env' })),
  /**
   * Host header to send instead of "127.0.0.1:<p>" (the guest port, or a TCP forward's), for a Windows-MCP
   * bound to one IP (its Host check then accepts only that IP). Default: none.
   */
  host_header: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:\\[\\]-]+$', description: 'Host header to send, e.g. "10.0.0.5:8000"; default 127.0.0.1:<port>' })),
  /** Bound for one Windows-MCP tool call that is not vm_exec (whose own timeout rules). Default 30000. */
  call_timeout_ms: Type.Integer({ default: 30000, minimum: 500, maximum: 600000, description: 'timeout of one tool call, default 30000' }),
  /**
   * Raw bytes per PowerShell file chunk. A PowerShell script travels base64(UTF-16LE) on the
   * guest's command line (32 767 chars), so a script must stay under ~12 000 characters; 6000 raw
   * bytes are 8000 base64 characters. Default 6000.
   */
  chunk_bytes: Type.Integer({ default: 6000, minimum: 256, maximum: 8000, description: 'bytes per PowerShell file chunk, default 6000' }),
  /** Largest archive vm_clone_repo copies into the guest. Default 64 MiB. */
  max_archive_bytes: Type.Integer({ default: 67108864, minimum: 1024, description: 'cap for clone archives, default 64 MiB' }),
  /** The Windows home that "/root" (core's home for relative paths) maps to. Default: asked once per session ($HOME). */
  home: Type.Optional(Type.String({ minLength: 3, pattern: '^[A-Za-z]:\\\\', description: 'Windows home, e.g. C:\\Users\\vmhub; default asked from the guest' })),
}, { additionalProperties: false });

export type WindowsOptionsInput = Partial<Static<typeof WindowsOptionsSchema>>;
export type WindowsOptions = Static<typeof WindowsOptionsSchema>;

export function resolveOptions(raw: WindowsOptionsInput | Record<string, unknown> = {}): WindowsOptions {
  return assertValid<WindowsOptions>(WindowsOptionsSchema, structuredClone(raw), `[vmhub] [${SOURCE}] options`, SOURCE);
}

