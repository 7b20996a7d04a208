/**
 * DockerProviderOptions: what an operator may set for the docker provider, validated (with
 * defaults filled) by defineProvider. TypeBox comes from @vmhub/core's re-export.
 */
import { Type, type Static } from '@vmhub/core';

export const DockerProviderOptionsSchema = Type.Object({
  /** Daemon address: unix:///path or tcp://host:port. Default: env DOCKER_HOST, else unix:///var/run/docker.sock. */
  dockerHost: Type.Optional(Type.String({ minLength: 1, description: 'unix:///path or tcp://host:port; default env DOCKER_HOST, else unix:///var/run/docker.sock' })),
  /** Engine API version pinned in every path. Default "1.41" (Debian's docker.io 20.10). */
  apiVersion: Type.String({ pattern: '^1\\.[0-9]+$', default: '1.41', description: 'Engine API version pinned in paths' }),
  /** Guest user execs and files default to. Default "user" (the golden image's desktop user). */
  desktopUser: Type.String({ minLength: 1, default: 'user', description: 'default guest user for exec and files' }),
  /** Largest file putFile/getFile move, in bytes. Default 104857600 (100 MiB). */
  maxFileBytes: Type.Integer({ minimum: 1, default: 104857600, description: 'cap for putFile/getFile in bytes' }),
  /** Largest tar stream putArchive accepts, in bytes. Default 1073741824 (1 GiB). */
  maxArchiveBytes: Type.Integer({ minimum: 1, default: 1073741824, description: 'cap for putArchive in bytes' }),
  /** Run execs through the persistent in-guest helper (perl). Default true; false = one docker exec per call. */
  execHelper: Type.Boolean({ default: true, description: 'persistent in-guest exec helper (false: one docker exec per call)' }),
}, { additionalProperties: false });

export type DockerProviderOptions = Static<typeof DockerProviderOptionsSchema>;
