/**
 * DockerProviderOptions: what an operator may set for the docker provider (config.json
 * `providers.docker`), validated (with defaults filled) by defineProvider. Keys are snake_case like
 * every other vmhub config key. TypeBox comes from @vmhub/core's re-export.
 */
import { Type, type Static } from '@vmhub/core';

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
}, { additionalProperties: false });

export type DockerProviderOptions = Static<typeof DockerProviderOptionsSchema>;
