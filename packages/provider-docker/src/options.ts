/**
 * DockerProviderOptions: what an operator may set for the docker provider (config.json
 * `providers.docker`), validated (with defaults filled) by defineProvider; and
 * DockerTemplateOptions, what a docker template's `provider_options` may say. Keys are snake_case
 * like every other vmhub config key. TypeBox comes from @vmhub/core's re-export.
 */
import { assertValid, Type, type Static, type TemplateConfig } from '@vmhub/core';

export const DockerProviderOptionsSchema = Type.Object({
  /** Daemon address: unix:///path or tcp://host:port. Default: env DOCKER_HOST, else unix:///var/run/docker.sock. */
  docker_host: Type.Optional(Type.String({ minLength: 1, description: 'unix:///path or tcp://host:port; default env DOCKER_HOST, else unix:///var/run/docker.sock' })),
  /** Engine API version pinned in every path. Default "1.41" (Debian's docker.io 20.10). */
  api_version: Type.String({ pattern: '^1\\.[0-9]+$', default: '1.41', description: 'Engine API version pinned in paths; default "1.41"' }),
  /** Guest user execs and files default to. Default "user" (the golden image's desktop user). */
  desktop_user: Type.String({ minLength: 1, default: 'user', description: 'default guest user for exec and files; default "user"' }),
  /** Largest file putFile/getFile move, in bytes. Default 104857600 (100 MiB). */
  max_file_bytes: Type.Integer({ minimum: 1, default: 104857600, description: 'cap for putFile/getFile in bytes; default 104857600 (100 MiB)' }),
  /** Largest tar stream putArchive accepts, in bytes. Default 1073741824 (1 GiB). */
  max_archive_bytes: Type.Integer({ minimum: 1, default: 1073741824, description: 'cap for putArchive in bytes; default 1073741824 (1 GiB)' }),
  /** Run execs through the persistent in-guest helper (perl). Default true; false = one docker exec per call. */
  exec_helper: Type.Boolean({ default: true, description: 'persistent in-guest exec helper; default true (false: one docker exec per call)' }),
  /**
   * Share each container's framebuffer with the host through a tmpfs directory (Xvfb -fbdir), so
   * screenshots read it without entering the guest. Only with an engine on a unix socket. Default true.
   */
  framebuffer: Type.Boolean({ default: true, description: 'screenshots read Xvfb\'s framebuffer from a host tmpfs (local engine only); default true' }),
  /** Host directory (on a tmpfs) for the framebuffers. Default /dev/shm/vmhub-fb-<uid>. */
  framebuffer_dir: Type.Optional(Type.String({ pattern: '^/', description: 'absolute host directory on a tmpfs; default /dev/shm/vmhub-fb-<uid>' })),
}, { additionalProperties: false });

export type DockerProviderOptions = Static<typeof DockerProviderOptionsSchema>;

/**
 * A docker template's `provider_options`, checked by core when the server loads its templates
 * (an unknown key is refused, naming it), and read here with defaults filled.
 */
export const DockerTemplateOptionsSchema = Type.Object({
  /** Xvfb screen `WIDTHxHEIGHTxDEPTH` (the container gets VMHUB_SCREEN). Default "1280x800x24". */
  screen: Type.String({ pattern: '^[0-9]{2,5}x[0-9]{2,5}x(8|15|16|24|30)$', default: '1280x800x24', description: 'WIDTHxHEIGHTxDEPTH, e.g. 1280x800x24; default 1280x800x24' }),
  /** Docker network: "bridge" or a network name. Default: none (only lo): a lease has no network unless its template says so. */
  network: Type.Optional(Type.String({ minLength: 1, description: '"bridge" or a network name; default none (only lo)' })),
  /** X display the readiness probes use. Default ":0" (the golden image's Xvfb). */
  display: Type.String({ pattern: '^[A-Za-z0-9.-]*:[0-9]+(\\.[0-9]+)?$', default: ':0', description: 'X display for readiness probes; default ":0"' }),
  /** Guest user for execs and files. Default: the provider's desktop_user ("user"). */
  user: Type.Optional(Type.String({ minLength: 1, description: 'guest user for execs and files; default the provider option desktop_user' })),
  /** Extra environment for the container (e.g. an output scale the golden's session reads). */
  env: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z_][A-Z0-9_]{0,63}$' }), Type.String({ maxLength: 4096 }), { additionalProperties: false, description: 'extra container environment, NAME: value' })),
  /**
   * Per-lease secrets: for each name, a random value (24 bytes, base64url) made at create and set
   * as that environment variable in the container — e.g. the auth key the golden's Windows-MCP
   * starts with. Adapters read it back as `lease.secret(name)`; it lives only in the container.
   */
  lease_secrets: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Z_][A-Z0-9_]{0,63}$' }), { maxItems: 8, uniqueItems: true, description: 'env names given a random per-lease value at create' })),
  /**
   * The GuestChannel adapters get: the docker exec channel (default), or adb to the container's
   * adbd on `port` (Android stand-in), tunnelled like every guest port.
   */
  guest_channel: Type.Optional(Type.Object({
    kind: Type.Literal('adb'),
    port: Type.Integer({ minimum: 1, maximum: 65535, default: 5555 }),
  }, { additionalProperties: false, description: '{kind: "adb", port}: hand adapters an adb channel to the guest\'s adbd' })),
}, { additionalProperties: false });

export type DockerTemplateOptions = Static<typeof DockerTemplateOptionsSchema>;

/** The template's provider_options with defaults filled (already checked at load; checked again for direct callers). */
export function dockerTemplateOptions(template: TemplateConfig): DockerTemplateOptions {
  return assertValid<DockerTemplateOptions>(DockerTemplateOptionsSchema, structuredClone(template.provider_options ?? {}), `[vmhub] [provider-docker] template "${template.id}" provider_options`, 'provider-docker');
}
