/**
 * Golden images: build (when the manifest-hash tag is missing) and report status. The provider
 * spec's goldens (docker-golden.ts, behind `vmhub-server golden …`) and the standalone
 * golden/build.mjs both call buildGolden.
 */
import { VmhubError } from '@vmhub/core';
import { spawnSync } from 'node:child_process';
import { DockerClient } from './docker-client.ts';
import { buildWithDebootstrap } from './golden-debootstrap.ts';
import { buildWithDockerfile, dockerfile } from './golden-dockerfile.ts';
import { acquireGoldenLock, buildCancelled } from './golden-lock.ts';
import { loadGolden } from './golden-manifest.ts';

export type GoldenBuildMethod = 'auto' | 'dockerfile' | 'debootstrap';

export interface BuildGoldenOptions {
  /** How to build. `auto`: Dockerfile when the base image is already local, else debootstrap when run as root with debootstrap installed, else Dockerfile (pulls the base). */
  method?: GoldenBuildMethod;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Rebuild even when the tag exists. */
  force?: boolean;
  /** Docker daemon (default DOCKER_HOST or /var/run/docker.sock). */
  dockerHost?: string;
  /** debootstrap path: where .debs are cached between builds. Default env VMHUB_GOLDEN_CACHE, else /var/cache/vmhub-debootstrap. */
  cacheDir?: string;
  /** Dockerfile path: network for the build's RUN steps (e.g. "host" where the bridge has no route out). Default: the daemon's. */
  buildNetwork?: string;
  /** Cancels the build: the daemon request or the debootstrap/chroot processes are stopped. */
  signal?: AbortSignal;
}

export interface GoldenStatus {
  name: string;
  tag: string;
  hash: string;
  built: boolean;
  /** Image id and size when built. */
  image_id?: string;
  size_bytes?: number;
  /** The command that builds it, for messages. */
  build_command: string;
}

export interface BuildGoldenResult extends GoldenStatus {
  /** false when the tag was already there. */
  rebuilt: boolean;
  method?: 'dockerfile' | 'debootstrap';
  duration_ms: number;
}

/** `vmhub/<name>:<manifest hash>`; no I/O beyond reading the manifest. */
export function goldenImageTag(name: string): string {
  return loadGolden(name).tag;
}

/** The Dockerfile build path (a) would use for `name`, generated from its manifest. */
export function goldenDockerfile(name: string): string {
  return dockerfile(loadGolden(name));
}

export function goldenBuildCommand(name: string): string {
  return `vmhub-server golden build ${name}`;
}

export async function goldenStatus(name: string, options: { dockerHost?: string; docker?: DockerClient } = {}): Promise<GoldenStatus> {
  const g = loadGolden(name);
  const docker = options.docker ?? new DockerClient({ host: options.dockerHost });
  try {
    const res = await docker.raw('GET', `/images/${g.tag}/json`);
    const base = { name, tag: g.tag, hash: g.hash, build_command: goldenBuildCommand(name) };
    if (res.status === 404) return { ...base, built: false };
    if (res.status >= 400) throw docker.httpError('GET', `/images/${g.tag}/json`, res.status, res.body);
    const info = JSON.parse(res.body.toString('utf8')) as { Id: string; Size: number };
    return { ...base, built: true, image_id: info.Id, size_bytes: info.Size };
  } finally {
    if (!options.docker) docker.close();
  }
}

function hasCommand(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

async function pickMethod(method: GoldenBuildMethod, base: string, docker: DockerClient): Promise<'dockerfile' | 'debootstrap'> {
  if (method !== 'auto') return method;
  const local = await docker.raw('GET', `/images/${base}/json`);
  if (local.status === 200) return 'dockerfile';
  if (process.getuid?.() === 0 && hasCommand('debootstrap') && hasCommand('chroot')) return 'debootstrap';
  return 'dockerfile';
}

export async function buildGolden(name: string, options: BuildGoldenOptions = {}): Promise<BuildGoldenResult> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const g = loadGolden(name);
  if (options.signal?.aborted) throw buildCancelled(name, options.signal);
  const docker = new DockerClient({ host: options.dockerHost });
  try {
    const before = await goldenStatus(name, { docker });
    if (before.built && !options.force) {
      log(`${g.tag} is already built`);
      return { ...before, rebuilt: false, duration_ms: Date.now() - started };
    }
    const release = await acquireGoldenLock(name, log, undefined, options.signal);
    try {
      return await buildLocked(name, g, docker, options, log, started);
    } finally {
      release();
    }
  } finally {
    docker.close();
  }
}

async function buildLocked(name: string, g: ReturnType<typeof loadGolden>, docker: DockerClient, options: BuildGoldenOptions, log: (line: string) => void, started: number): Promise<BuildGoldenResult> {
  const waited = await goldenStatus(name, { docker });
  if (waited.built && !options.force) {
    log(`${g.tag} was built by another process meanwhile`);
    return { ...waited, rebuilt: false, duration_ms: Date.now() - started };
  }
  const method = await pickMethod(options.method ?? 'auto', g.manifest.debian.base_image, docker);
  log(`building ${g.tag} with ${method}`);
  if (method === 'debootstrap') await buildWithDebootstrap(g, docker, log, options.cacheDir, options.signal);
  else await buildWithDockerfile(g, docker, log, options.buildNetwork, options.signal);
  const after = await goldenStatus(name, { docker });
  if (!after.built) throw new VmhubError('PROVISION_FAILED', `[vmhub] [provider-docker] golden build of ${g.tag} finished but the image is not there`, { source: 'provider-docker' });
  log(`built ${g.tag} (${((after.size_bytes ?? 0) / 1e6).toFixed(0)} MB) in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return { ...after, rebuilt: true, method, duration_ms: Date.now() - started };
}
