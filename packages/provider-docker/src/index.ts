/**
 * @vmhub/provider-docker — Docker containers as vmhub machines, over the Docker Engine API
 * (unix socket or DOCKER_HOST). Creates containers from golden images with identity labels,
 * reports readiness (container → X display → desktop), destroys only after verifying identity,
 * lists what this instance owns, and opens GuestChannels whose execs go through a persistent
 * in-guest helper. Also builds the `debian-x11` golden image (debootstrap or Dockerfile), reached
 * through the provider spec's `goldens`.
 */
import { defineProvider, readPackageVersion, type ProviderContext } from '@vmhub/core';
import { dockerGoldens } from './docker-golden.ts';
import { dockerProviderMethods } from './docker-provider.ts';
import { DockerProviderOptionsSchema, DockerTemplateOptionsSchema, type DockerProviderOptions } from './options.ts';
import { DOCKER_TEMPLATES } from './templates.ts';


/** This package's version, from its package.json. */
export const VERSION = readPackageVersion(import.meta.url);

const dockerProvider = defineProvider<DockerProviderOptions>({
  id: 'docker',
  version: VERSION,
  contractVersion: 2,
  options: DockerProviderOptionsSchema,
  templateOptions: DockerTemplateOptionsSchema,
  templates: DOCKER_TEMPLATES,
  goldens: dockerGoldens,
  create: dockerProviderMethods,
});

export default dockerProvider;

/** Factory: validates options and returns a Provider; no I/O until a method is called. */
export function createDockerProvider(options: Partial<DockerProviderOptions> | undefined, context: ProviderContext) {
  return dockerProvider.create(options, context);
}

export { DockerProviderOptionsSchema, DockerTemplateOptionsSchema, type DockerProviderOptions, type DockerTemplateOptions } from './options.ts';
export { debianX11Template, DOCKER_TEMPLATES } from './templates.ts';
export { dockerGoldens } from './docker-golden.ts';
export { buildGolden, goldenStatus, goldenImageTag, goldenBuildCommand, goldenDockerfile, type BuildGoldenOptions, type BuildGoldenResult, type GoldenBuildMethod, type GoldenStatus } from './golden-build.ts';
export { goldenNames } from './golden-manifest.ts';
export { DockerClient } from './docker-client.ts';
export { parseDockerHost } from './docker-host.ts';
export { DockerChannel } from './docker-channel.ts';
export { LABEL_IDENTITY, LABEL_LEASE, LABEL_TEMPLATE, LABEL_CREATED } from './docker-identity.ts';
