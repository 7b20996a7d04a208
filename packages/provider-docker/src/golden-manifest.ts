/**
 * Golden image manifests: one JSON file per image under the package's golden/ folder. The image
 * tag is the first 12 hex digits of a sha256 over the manifest and the scripts both build paths
 * run, so any change to what goes into the image yields a new tag (and a rebuild).
 *
 * Stand-in goldens (android-, hyprland-, macos-, windows-standin: test peers for OSes that cannot
 * run here) are not in this package: they live in @vmhub/standin-goldens (standins/goldens), a
 * private workspace package that is never published. In a checkout it is this package's
 * devDependency, so its folders join golden/ as a second root; installed from the registry it is
 * absent and only the real goldens exist.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VmhubError, type TemplateConfig } from '@vmhub/core';

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
  /** Extra suites of the same mirror (e.g. "bookworm-backports"); name their packages `pkg/suite`. */
  apt_suites?: string[];
  /** Session script in the golden's folder, installed as /usr/local/sbin/vmhub-session. Default lib/session.sh (the X11 session). */
  session?: string;
  /** Script in the golden's folder run as root in the root filesystem after packages, user and files are in place. */
  setup?: string;
  /** Files put into the image: from the golden's folder (`src`) or a self-contained file a package exports (`module`). */
  files?: GoldenFileSpec[];
  /** Commands that must exist after install. Default: the X11 desktop's tools. */
  verify?: string[];
  /** Readiness probes run in order (each until it exits 0). Default: the X11 display and window manager. */
  ready?: ReadyProbe[];
  /**
   * The golden runs sshd on 127.0.0.1:`port` (its setup configures that port; its session starts
   * sshd with the key the provider gives): the image carries label `vmhub.ssh.port`, and the
   * docker provider gives each lease of it a key pair of its own (docker-ssh.ts). Absent: no sshd.
   */
  ssh?: { port: number };
}

export interface GoldenFileSpec {
  dest: string;
  src?: string;
  /** An npm specifier resolved from the package holding the golden (e.g. "@vmhub/windows-mcp-standin/bundle" from @vmhub/standin-goldens). */
  module?: string;
  /** Octal string, e.g. "0755". Default "0644". */
  mode?: string;
}

export interface ReadyProbe {
  stage: string;
  argv: string[];
  /** Guest user the probe runs as. Default: the template's user. */
  user?: string;
}

/** The X11 desktop's readiness (debian-x11), for goldens that name none. */
export const X11_READY: ReadyProbe[] = [
  { stage: 'display', argv: ['xdpyinfo', '-display', '$DISPLAY'] },
  { stage: 'desktop', argv: ['wmctrl', '-m'] },
];

export interface Golden {
  manifest: GoldenManifest;
  /** 12 hex digits. */
  hash: string;
  /** `vmhub/debian-x11:<hash>`. */
  tag: string;
  /** Script files (name → content) the build runs inside the root filesystem; `golden` is the golden's own setup. */
  scripts: { setup: Buffer; session: Buffer; golden?: Buffer };
  /** Files to place in the image (resolved and read). */
  files: { dest: string; data: Buffer; mode: number }[];
  /** Why the golden cannot be built from here (a `module` file that does not resolve), if so. */
  unbuildable?: string;
}

/** The golden/ folder shipped with the package (works from src/ and dist/ alike). */
export const GOLDEN_DIR = fileURLToPath(new URL('../golden/', import.meta.url));

/** The private workspace package holding the stand-in goldens (a checkout has it; npm installs do not). */
export const STANDIN_GOLDENS_PACKAGE = '@vmhub/standin-goldens';

/** A folder of golden folders, and the package.json `module` files are resolved from. */
export interface GoldenRoot {
  /** Ends with a separator. */
  dir: string;
  package: string;
  packageJson: string;
}

const OWN_ROOT: GoldenRoot = { dir: GOLDEN_DIR, package: '@vmhub/provider-docker', packageJson: fileURLToPath(new URL('../package.json', import.meta.url)) };

let standinRootCache: GoldenRoot | null | undefined;

/** The stand-in goldens' folder when @vmhub/standin-goldens resolves from here (a checkout), else undefined. */
export function standinGoldensRoot(): GoldenRoot | undefined {
  if (standinRootCache === undefined) {
    try {
      const packageJson = createRequire(import.meta.url).resolve(`${STANDIN_GOLDENS_PACKAGE}/package.json`);
      standinRootCache = { dir: dirname(packageJson) + sep, package: STANDIN_GOLDENS_PACKAGE, packageJson };
    } catch {
      standinRootCache = null;
    }
  }
  return standinRootCache ?? undefined;
}

/** Where goldens are looked up, this package's own first. */
export function goldenRoots(): GoldenRoot[] {
  const standins = standinGoldensRoot();
  return standins ? [OWN_ROOT, standins] : [OWN_ROOT];
}

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

function namesIn(root: GoldenRoot): string[] {
  return readdirSync(root.dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && NAME.test(e.name) && existsSync(`${root.dir}${e.name}/manifest.json`))
    .map((e) => e.name);
}

/** The root holding this golden (the first one, when two hold the same name). */
function rootOf(name: string): GoldenRoot | undefined {
  if (!NAME.test(name)) return undefined;
  return goldenRoots().find((r) => existsSync(`${r.dir}${name}/manifest.json`));
}

/**
 * Names of the golden images this package can build: the folders holding a manifest.json under
 * golden/ and, in a checkout, under the stand-in goldens' package.
 */
export function goldenNames(): string[] {
  return [...new Set(goldenRoots().flatMap(namesIn))].sort();
}

/** Why a stand-in golden cannot be found here, for messages (undefined when the stand-ins are present). */
export function standinGoldensAbsent(): string | undefined {
  if (standinGoldensRoot()) return undefined;
  return `stand-in goldens (android-, hyprland-, macos-, windows-standin) are test peers kept in ${STANDIN_GOLDENS_PACKAGE}, a private workspace package that only a vmhub checkout has (it is never published): build them from a checkout of the vmhub repository`;
}

export function loadGolden(name: string): Golden {
  const root = rootOf(name);
  if (!root) {
    const looked = goldenRoots().map((r) => `${r.dir}${name}/manifest.json`).join(', ');
    const absent = name.endsWith('-standin') ? standinGoldensAbsent() : undefined;
    throw new VmhubError('NOT_FOUND', `[vmhub] [provider-docker] no golden image manifest named "${name}" (looked for ${looked}); known: ${goldenNames().join(', ') || '(none)'}${absent ? `; ${absent}` : ''}`, { source: 'provider-docker' });
  }
  const dir = `${root.dir}${name}/`;
  const path = `${dir}manifest.json`;
  const raw = readFileSync(path);
  const manifest = JSON.parse(raw.toString('utf8')) as GoldenManifest;
  const problems: string[] = [];
  // A file the manifest names but the folder lacks makes this golden unbuildable, not the package unloadable.
  const own = (file: string): Buffer => {
    const full = locate(root, dir, file, name);
    if (full) return readFileSync(full);
    problems.push(`${file} is missing from golden/${name}/`);
    return Buffer.alloc(0);
  };
  const setup = readFileSync(`${GOLDEN_DIR}lib/setup-rootfs.sh`);
  const session = manifest.session ? own(manifest.session) : readFileSync(`${GOLDEN_DIR}lib/session.sh`);
  const golden = manifest.setup ? own(manifest.setup) : undefined;
  const files: Golden['files'] = [];
  for (const f of manifest.files ?? []) {
    if (!f.dest.startsWith('/') || f.dest.includes('..')) throw new VmhubError('INVALID_REQUEST', `[vmhub] [provider-docker] golden "${name}": file dest "${f.dest}" must be an absolute path without ".."`, { source: 'provider-docker' });
    const mode = parseInt(f.mode ?? '0644', 8);
    if (f.src) files.push({ dest: f.dest, data: own(f.src), mode });
    else if (f.module) {
      const file = resolveModule(f.module, root);
      if (file) files.push({ dest: f.dest, data: readFileSync(file), mode });
      else {
        const pkg = f.module.split('/').slice(0, 2).join('/');
        problems.push(root === OWN_ROOT
          ? `${f.module} (for ${f.dest}) does not resolve: install ${pkg} where @vmhub/provider-docker is installed (npm install ${pkg})`
          : `${f.module} (for ${f.dest}) does not resolve from ${root.package}: build ${pkg} (pnpm --filter ${pkg} build)`);
      }
    }
  }
  const h = createHash('sha256');
  const parts: [string, Buffer][] = [['manifest.json', raw], ['setup-rootfs.sh', setup], ['session.sh', session]];
  if (golden) parts.push(['golden-setup', golden]);
  for (const f of files) parts.push([`file:${f.dest}:${f.mode}`, f.data]);
  for (const p of problems) parts.push([`missing:${p}`, Buffer.alloc(0)]);
  for (const [label, data] of parts) {
    h.update(`${label}\0${data.length}\0`);
    h.update(data);
  }
  const hash = h.digest('hex').slice(0, 12);
  return {
    manifest, hash, tag: `${manifest.repository}:${hash}`,
    scripts: { setup, session, ...(golden ? { golden } : {}) },
    files,
    ...(problems.length ? { unbuildable: problems.join('; ') } : {}),
  };
}

/**
 * A file a manifest names, relative to its golden's folder. It must stay inside the golden's root;
 * the roots are one namespace, so `../wayland-sway/session.sh` from a stand-in golden finds
 * wayland-sway's file in golden/. Undefined when no root has it.
 */
function locate(root: GoldenRoot, dir: string, file: string, name: string): string | undefined {
  const rel = relative(root.dir, resolve(dir, file));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [provider-docker] golden "${name}": "${file}" is outside golden/`, { source: 'provider-docker' });
  for (const r of [root, ...goldenRoots().filter((x) => x !== root)]) {
    const full = resolve(r.dir, rel);
    if (existsSync(full)) return full;
  }
  return undefined;
}

function resolveModule(specifier: string, root: GoldenRoot): string | undefined {
  try {
    const file = createRequire(root.packageJson).resolve(specifier);
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** The template a golden's folder offers (template.json), with provider and golden filled in; undefined when it has none. */
export function goldenTemplate(name: string): TemplateConfig | undefined {
  const root = rootOf(name);
  const path = `${root?.dir ?? GOLDEN_DIR}${name}/template.json`;
  if (!existsSync(path)) return undefined;
  const t = JSON.parse(readFileSync(path, 'utf8')) as Omit<TemplateConfig, 'provider' | 'golden'>;
  return { ...t, provider: 'docker', golden: loadGolden(name).tag } as TemplateConfig;
}

/** Readiness probes as an image label (base64 JSON: no quoting rules to get wrong in LABEL). */
export function readyLabel(g: Golden): string {
  return Buffer.from(JSON.stringify(g.manifest.ready ?? X11_READY)).toString('base64');
}

/** The image label saying a golden runs sshd, and on which guest port (manifest "ssh"). */
export const SSH_PORT_LABEL = 'vmhub.ssh.port';

/** The labels both build paths give the image: name, hash, readiness probes, the sshd port if any. Values need no quoting. */
export function imageLabels(g: Golden): [string, string][] {
  const labels: [string, string][] = [['vmhub.golden', g.manifest.name], ['vmhub.golden.hash', g.hash], ['vmhub.ready', readyLabel(g)]];
  if (g.manifest.ssh) labels.push([SSH_PORT_LABEL, String(g.manifest.ssh.port)]);
  return labels;
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
    VMHUB_MIRROR: m.debian.mirror,
    VMHUB_APT_SUITES: (m.apt_suites ?? []).join(' '),
    VMHUB_VERIFY_TOOLS: (m.verify ?? X11_TOOLS).join(' '),
    ...extra,
  };
  return Object.entries(vars).map(([k, v]) => `${k}=${q(v)}`).join('\n') + '\n';
}

/** What debian-x11's adapters rely on, checked when a golden names no `verify` list. */
const X11_TOOLS = ['Xvfb', 'openbox', 'xterm', 'xdotool', 'wmctrl', 'xclip', 'xdpyinfo', 'xprop', 'xwininfo', 'xwd', 'git', 'sudo', 'tini', 'perl', 'tar', 'pgrep'];

/** Image config both build paths apply: entrypoint, env, labels. */
export function imageEnv(g: Golden): string[] {
  return Object.entries({ ...g.manifest.env, VMHUB_USER: g.manifest.user.name }).map(([k, v]) => `${k}=${v}`);
}
