/**
 * The provider's golden images: the offline test goldens `tiny-console` and `tiny-console-agent`
 * (recipe in tiny-console-recipe.ts), built, reused and reported on here, and offered to
 * `vmhub-server golden …` through the provider spec's `goldens()` (GoldenImages).
 *
 * Output: `<dir>/<name>-<hash>/{vmlinuz,initrd.img,manifest.json}` plus a `<name>` symlink to
 * the newest build. The hash covers every input, so a rebuild happens only when the
 * kernel, busybox, the modules or the recipe change.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { VmhubError, type GoldenImages, type GoldenState } from '@vmhub/core';
import { writeCpio } from './cpio.ts';
import { defaultGoldenDir } from './paths.ts';
import { initramfsEntries, RECIPE_VERSION, resolveInputs, type Inputs, type RecipeOptions } from './tiny-console-recipe.ts';
import { buildHint, GOLDEN_NAMES, TINY_CONSOLE_READY_MARKER, type GoldenName } from './tiny-console.ts';

const SOURCE = 'provider-qemu';

export interface GoldenBuildOptions extends RecipeOptions {
  /** Rebuild even when the output for these inputs exists. */
  force?: boolean;
  /** Progress lines (the CLI prints them on stderr). */
  progress?: (line: string) => void;
  /** Stops the build between steps; nothing half-written is left as current. */
  signal?: AbortSignal;
}

export interface GoldenStatus {
  name: GoldenName;
  /** True when the build for the current inputs exists. */
  built: boolean;
  /** Content-hashed output directory (exists when built). */
  dir: string;
  /** Stable paths through the `tiny-console` symlink (what the default template uses). */
  kernel: string;
  initrd: string;
  hash: string;
  /** Why it is not built, and how to build it. */
  reason?: string;
}

export type GoldenBuildResult = GoldenStatus & {
  /** False when the build for these inputs already existed and was reused. */
  rebuilt: boolean;
};

function known(name: string): GoldenName {
  if (!(GOLDEN_NAMES as readonly string[]).includes(name)) throw new VmhubError('INVALID_REQUEST', `[vmhub] [${SOURCE}] unknown golden "${name}"; known: ${GOLDEN_NAMES.join(', ')}`, { source: SOURCE });
  return name as GoldenName;
}

function statusFor(inputs: Inputs, built: boolean): GoldenStatus {
  const dir = join(inputs.root, `${inputs.name}-${inputs.hash}`);
  const current = join(inputs.root, inputs.name);
  return {
    name: inputs.name,
    built,
    dir,
    kernel: join(current, 'vmlinuz'),
    initrd: join(current, 'initrd.img'),
    hash: inputs.hash,
    ...(built ? {} : { reason: `${inputs.name} golden for these inputs is not built: ${buildHint(inputs.name)}` }),
  };
}

/** Is the golden for the host's current kernel/busybox (/qemu-ga) built? Never builds. */
export async function goldenStatus(options: RecipeOptions & { name?: GoldenName } = {}): Promise<GoldenStatus> {
  const inputs = await resolveInputs(known(options.name ?? 'tiny-console'), options);
  return statusFor(inputs, existsSync(join(inputs.root, `${inputs.name}-${inputs.hash}`, 'manifest.json')));
}

/** Build (or reuse) the tiny-console golden; returns where it is. */
export async function buildTinyConsoleGolden(options: GoldenBuildOptions = {}): Promise<GoldenBuildResult> {
  return buildGolden('tiny-console', options);
}

/** Build (or reuse) a named test golden: `tiny-console` or `tiny-console-agent`. */
export async function buildGolden(name: GoldenName, options: GoldenBuildOptions = {}): Promise<GoldenBuildResult> {
  known(name);
  const { signal, progress } = options;
  signal?.throwIfAborted();
  const inputs = await resolveInputs(name, options);
  const status = statusFor(inputs, true);
  if (!options.force && existsSync(join(status.dir, 'manifest.json'))) {
    await pointCurrent(inputs.root, status.dir, name);
    return { ...status, rebuilt: false };
  }
  progress?.(`building ${name} (kernel ${inputs.kernelVersion} + busybox initramfs${inputs.extra.length > 0 ? ' + qemu-ga + sshd' : ''})`);
  const { entries, modules } = await initramfsEntries(inputs);
  signal?.throwIfAborted();

  const tmp = `${status.dir}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  try {
    await mkdir(tmp, { recursive: true });
    await writeFile(join(tmp, 'initrd.img'), gzipSync(writeCpio(entries), { level: 6 }));
    await copyFile(inputs.kernelPath, join(tmp, 'vmlinuz'));
    const manifest = {
      name: inputs.name, hash: inputs.hash, recipe: RECIPE_VERSION, guest_agent: inputs.extra.length > 0, sshd: inputs.data.length > 0, kernel: inputs.kernelPath,
      kernel_version: inputs.kernelVersion, busybox: inputs.busyboxPath, modules,
      ready_marker: TINY_CONSOLE_READY_MARKER, built_at: new Date().toISOString(),
    };
    await writeFile(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    signal?.throwIfAborted();
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
  await rm(status.dir, { recursive: true, force: true });
  await rename(tmp, status.dir);
  await pointCurrent(inputs.root, status.dir, name);
  // QEMU reads kernel and initrd at start, so running leases do not need older builds.
  const old = new RegExp(`^${name}-[0-9a-f]{16}$`);
  for (const entry of await readdir(inputs.root)) {
    if (old.test(entry) && join(inputs.root, entry) !== status.dir) await rm(join(inputs.root, entry), { recursive: true, force: true });
  }
  progress?.(`${name} built in ${status.dir}`);
  return { ...status, rebuilt: true };
}

async function pointCurrent(root: string, dir: string, name: GoldenName): Promise<void> {
  const link = join(root, name);
  const tmp = `${link}.tmp-${process.pid}`;
  await rm(tmp, { force: true });
  await symlink(basename(dir), tmp);
  await rename(tmp, link); // atomic swap: a running lease keeps its open files
}

function state(s: GoldenStatus): GoldenState {
  return { name: s.name, built: s.built, ref: s.dir, ...(s.reason ? { detail: s.reason } : {}) };
}

/**
 * The goldens as the provider spec offers them (`vmhub-server golden status|build`). `ref` is
 * the content-hashed build directory. status() never throws for a known name: when the host
 * lacks an input (no kernel in /boot, no busybox-static) the golden is not built and `detail`
 * says what to install.
 */
export function qemuGoldens(options: RecipeOptions = {}): GoldenImages {
  return {
    names: GOLDEN_NAMES,
    async status(name) {
      const n = known(name);
      try {
        return state(await goldenStatus({ ...options, name: n }));
      } catch (err) {
        if (!VmhubError.is(err)) throw err;
        return { name: n, built: false, ref: join(options.dir ?? defaultGoldenDir(), n), detail: err.message };
      }
    },
    async build(name, o = {}) {
      const r = await buildGolden(known(name), { ...options, ...(o.force === undefined ? {} : { force: o.force }), ...(o.progress ? { progress: o.progress } : {}), ...(o.signal ? { signal: o.signal } : {}) });
      return { ...state(r), rebuilt: r.rebuilt };
    },
  };
}
