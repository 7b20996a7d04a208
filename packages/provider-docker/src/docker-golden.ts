/**
 * The docker provider's golden images on the provider spec (`goldens(options)`), so
 * `vmhub-server golden …` reaches them without naming this package. Names come from the
 * manifests under golden/; a golden's ref is its image tag (`vmhub/<name>:<manifest hash>`), so a
 * changed manifest reads as not built until it is rebuilt. The daemon is the provider's
 * `docker_host` (else DOCKER_HOST, else the default socket), the same one containers run on.
 */
import type { GoldenBuildOptions, GoldenImages, GoldenState } from '@vmhub/core';
import { buildGolden, goldenBuildCommand, goldenStatus, type GoldenStatus } from './golden-build.ts';
import { goldenNames } from './golden-manifest.ts';
import type { DockerProviderOptions } from './options.ts';

function state(s: GoldenStatus): GoldenState {
  if (s.built) return { name: s.name, built: true, ref: s.tag };
  return { name: s.name, built: false, ref: s.tag, detail: `image ${s.tag} is not on the Docker host: run \`${goldenBuildCommand(s.name)}\`` };
}

export function dockerGoldens(options: Pick<DockerProviderOptions, 'docker_host'>): GoldenImages {
  const dockerHost = options.docker_host;
  return {
    names: Object.freeze(goldenNames()),
    async status(name: string): Promise<GoldenState> {
      return state(await goldenStatus(name, { dockerHost }));
    },
    async build(name: string, build: GoldenBuildOptions = {}): Promise<GoldenState & { rebuilt: boolean }> {
      const r = await buildGolden(name, { dockerHost, log: build.progress, force: build.force, signal: build.signal });
      return { ...state(r), rebuilt: r.rebuilt };
    },
  };
}
