/**
 * DockerProviderOptions: what an operator may set for the docker provider. A plain JSON Schema
 * (the shape TypeBox emits) so the package needs no schema library of its own.
 */
import type { ProviderSpec } from '@vmhub/core';

export interface DockerProviderOptions {
  /** Daemon address: unix:///path or tcp://host:port. Default: env DOCKER_HOST, else unix:///var/run/docker.sock. */
  dockerHost?: string;
  /** Engine API version pinned in every path. Default "1.41" (Debian's docker.io 20.10). */
  apiVersion: string;
  /** Guest user execs and files default to. Default "user" (the golden image's desktop user). */
  desktopUser: string;
  /** Largest file putFile/getFile move, in bytes. Default 104857600 (100 MiB). */
  maxFileBytes: number;
  /** Largest tar stream putArchive accepts, in bytes. Default 1073741824 (1 GiB). */
  maxArchiveBytes: number;
  /** Run execs through the persistent in-guest helper (perl). Default true; false = one docker exec per call. */
  execHelper: boolean;
}

type Schema = NonNullable<ProviderSpec<DockerProviderOptions>['options']>;

export const DockerProviderOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    dockerHost: { type: 'string', minLength: 1, description: 'unix:///path or tcp://host:port; default env DOCKER_HOST, else unix:///var/run/docker.sock' },
    apiVersion: { type: 'string', pattern: '^1\\.[0-9]+$', default: '1.41', description: 'Engine API version pinned in paths' },
    desktopUser: { type: 'string', minLength: 1, default: 'user', description: 'default guest user for exec and files' },
    maxFileBytes: { type: 'integer', minimum: 1, default: 104857600, description: 'cap for putFile/getFile in bytes' },
    maxArchiveBytes: { type: 'integer', minimum: 1, default: 1073741824, description: 'cap for putArchive in bytes' },
    execHelper: { type: 'boolean', default: true, description: 'persistent in-guest exec helper (false: one docker exec per call)' },
  },
} as unknown as Schema;
