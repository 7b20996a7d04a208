/**
 * Golden image manifests: one JSON file per image under the package's golden/ folder. The image
 * tag is the first 12 hex digits of a sha256 over the manifest and the scripts both build paths
 * run, so any change to what goes into the image yields a new tag (and a rebuild).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { VmhubError } from '@vmhub/core';

export interface GoldenManifest {
  name: string;
  description?: string;
  repository: string;
  debian: { suite: string; mirror: string; variant: string; base_image: string };
  packages: string[];
  /** Installed as dependencies but never loaded here: purged after install to keep the image lean. */
  prune?: { packages: string[]; files: string[] };
  locales: string[];
  user: { name: string; uid: number; sudo: boolean };
  screen: string;
  display: string;
  env: Record<string, string>;
  entrypoint: string[];
}

export interface Golden {
  manifest: GoldenManifest;
  /** 12 hex digits. */
  hash: string;
  /** `vmhub/debian-x11:<hash>`. */
  tag: string;
  /** Script files (name → content) the build runs inside the root filesystem. */
  scripts: { setup: Buffer; session: Buffer };
}

/** The golden/ folder shipped with the package (works from src/ and dist/ alike). */
export const GOLDEN_DIR = fileURLToPath(new URL('../golden/', import.meta.url));

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Names of the golden images this package can build: the folders under golden/ holding a manifest.json. */
export function goldenNames(): string[] {
  return readdirSync(GOLDEN_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory() && NAME.test(e.name) && existsSync(`${GOLDEN_DIR}${e.name}/manifest.json`))
    .map((e) => e.name)
    .sort();
}

export function loadGolden(name: string): Golden {
  const path = `${GOLDEN_DIR}${name}/manifest.json`;
  if (!NAME.test(name) || !existsSync(path)) {
    throw new VmhubError('NOT_FOUND', `[vmhub] [provider-docker] no golden image manifest named "${name}" (looked for ${path}); known: ${goldenNames().join(', ') || '(none)'}`, { source: 'provider-docker' });
  }
  const raw = readFileSync(path);
  const manifest = JSON.parse(raw.toString('utf8')) as GoldenManifest;
  const setup = readFileSync(`${GOLDEN_DIR}lib/setup-rootfs.sh`);
  const session = readFileSync(`${GOLDEN_DIR}lib/session.sh`);
  const h = createHash('sha256');
  for (const [label, data] of [['manifest.json', raw], ['setup-rootfs.sh', setup], ['session.sh', session]] as const) {
    h.update(`${label}\0${data.length}\0`);
    h.update(data);
  }
  const hash = h.digest('hex').slice(0, 12);
  return { manifest, hash, tag: `${manifest.repository}:${hash}`, scripts: { setup, session } };
}

/** The environment file setup-rootfs.sh sources (values are manifest data, quoted for sh). */
export function setupEnv(m: GoldenManifest, extra: Record<string, string> = {}): string {
  const q = (v: string): string => `'${v.replaceAll("'", `'\\''`)}'`;
  const vars: Record<string, string> = {
    VMHUB_PACKAGES: m.packages.join(' '),
    VMHUB_PRUNE_PACKAGES: (m.prune?.packages ?? []).join(' '),
    VMHUB_PRUNE_FILES: (m.prune?.files ?? []).join(' '),
    VMHUB_LOCALES: m.locales.join(' '),
    VMHUB_LANG: m.env.LANG ?? 'C.UTF-8',
    VMHUB_USER: m.user.name,
    VMHUB_UID: String(m.user.uid),
    VMHUB_SUDO: String(m.user.sudo),
    ...extra,
  };
  return Object.entries(vars).map(([k, v]) => `${k}=${q(v)}`).join('\n') + '\n';
}

/** Image config both build paths apply: entrypoint, env, labels. */
export function imageEnv(g: Golden): string[] {
  return Object.entries({ ...g.manifest.env, VMHUB_USER: g.manifest.user.name }).map(([k, v]) => `${k}=${v}`);
}
